// htmx replaces parts of a page (the inbox as it refreshes, a run page as its live
// stream sends changes): a disclosure (<details id=...>) the reviewer opened stays open
// across the swap.
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
