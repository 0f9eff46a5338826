// The inbox refreshes by itself while the reviewer ticks boxes. Each refresh sends the
// boxes ticked when it left (hx-include) and its answer renders them ticked; a box ticked
// or unticked while that refresh was on its way would be undone by the answer. So the
// boxes as the reviewer left them win over the answer: the rows still listed take the
// page's state, new rows the server's. When a ticked row has gone (decided elsewhere,
// expired), the selection's summary is asked again.
// A file under /static, not inline script: the CSP allows only script-src 'self'.
(function () {
  "use strict";
  var kept = null; // value -> ticked, for the boxes on the page when a refresh swaps
  var keptTicked = "";

  function boxes(root) {
    return root.querySelectorAll('input[type="checkbox"][name="selected"]');
  }

  function ticked(root) {
    var keys = [];
    var all = boxes(root);
    for (var i = 0; i < all.length; i++) if (all[i].checked) keys.push(all[i].value);
    return keys.sort().join("\n");
  }

  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (!target || target.id !== "inbox") return;
    kept = {};
    var all = boxes(target);
    for (var i = 0; i < all.length; i++) kept[all[i].value] = all[i].checked;
    keptTicked = ticked(target);
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target;
    if (!target || target.id !== "inbox" || kept === null) return;
    var all = boxes(target);
    for (var i = 0; i < all.length; i++) {
      if (Object.prototype.hasOwnProperty.call(kept, all[i].value)) {
        all[i].checked = kept[all[i].value];
      }
    }
    kept = null;
    var form = document.getElementById("batch-form");
    if (form && window.htmx && ticked(target) !== keptTicked) {
      window.htmx.trigger(form, "change");
    }
  });
})();
