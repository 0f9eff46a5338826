// A page that follows a run replaces its live part every few seconds (htmx): a
// disclosure (<details id=...>) the reviewer opened stays open across the swap.
// A file under /static, not inline script: the CSP allows only script-src 'self'.
(function () {
  "use strict";
  var open = [];
  document.addEventListener("htmx:beforeSwap", function () {
    open = [];
    var shown = document.querySelectorAll("details[id][open]");
    for (var i = 0; i < shown.length; i++) open.push(shown[i].id);
  });
  document.addEventListener("htmx:afterSettle", function () {
    for (var i = 0; i < open.length; i++) {
      var again = document.getElementById(open[i]);
      if (again) again.open = true;
    }
  });
})();
