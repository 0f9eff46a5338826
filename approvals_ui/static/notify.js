// Browser notifications of new requests, for a reviewer who asks for them. The inbox
// already polls its list (hx-trigger every few seconds, _inbox_rows.html); after each
// swap, a request the page had not listed before, and that this reviewer may move
// forward, is told by a notification. Nothing is asked on page load: the permission is
// asked when the reviewer presses the button (browsers ignore or block a prompt that no
// click caused, and a prompt on arrival is what people learn to refuse). The choice is
// kept in this browser (localStorage), the permission by the browser itself.
// The words come from the page (data-* on #notify, in its language).
// A file under /static, not inline script: the CSP allows only script-src 'self'.
(function () {
  "use strict";
  var CHOICE = "signoff.notify";
  var seen = {};

  function box() {
    return document.getElementById("notify");
  }

  function wanted() {
    try {
      return window.localStorage.getItem(CHOICE) === "on" && Notification.permission === "granted";
    } catch (error) {
      return false; // storage refused (private mode, policy): no notification
    }
  }

  function keep(on) {
    try {
      if (on) window.localStorage.setItem(CHOICE, "on");
      else window.localStorage.removeItem(CHOICE);
    } catch (error) {
      // Storage refused: the choice lasts as long as this page.
    }
  }

  function show(state) {
    var holder = box();
    var button = document.getElementById("notify-toggle");
    button.setAttribute("aria-pressed", state === "on" ? "true" : "false");
    var lines = holder.querySelectorAll("[data-when]");
    for (var i = 0; i < lines.length; i++) {
      lines[i].hidden = lines[i].getAttribute("data-when") !== state;
    }
  }

  function state() {
    if (Notification.permission === "denied") return "denied";
    return wanted() ? "on" : "off";
  }

  function cards(root) {
    return root.querySelectorAll("li.card[data-action-hash]");
  }

  function remember(root) {
    var all = cards(root);
    for (var i = 0; i < all.length; i++) seen[all[i].getAttribute("data-action-hash")] = true;
  }

  function tell(fresh) {
    var holder = box();
    var one = fresh.length === 1;
    var titles = [];
    for (var i = 0; i < fresh.length; i++) {
      titles.push(fresh[i].querySelector(".card-title").textContent.trim());
    }
    var shown;
    try {
      shown = new Notification(holder.getAttribute(one ? "data-one" : "data-several"), {
        body: titles.join("\n"),
        // One notification for the inbox: a newer one replaces it rather than piling up.
        tag: "signoff-inbox",
      });
    } catch (error) {
      return; // a browser that shows them only from a service worker (Chrome on Android)
    }
    var link = one ? fresh[0].querySelector(".card-title").href : window.location.href;
    shown.onclick = function () {
      window.focus();
      window.location.assign(link);
    };
  }

  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target;
    if (!target || target.id !== "inbox") return;
    var fresh = [];
    var all = cards(target);
    for (var i = 0; i < all.length; i++) {
      var hash = all[i].getAttribute("data-action-hash");
      if (!seen[hash] && all[i].getAttribute("data-actionable") === "yes") fresh.push(all[i]);
    }
    remember(target);
    if (fresh.length && box() && wanted()) tell(fresh);
  });

  document.addEventListener("DOMContentLoaded", function () {
    var holder = box();
    if (!holder) return;
    var inbox = document.getElementById("inbox");
    if (inbox) remember(inbox);
    if (!("Notification" in window)) return; // the choice stays hidden
    holder.hidden = false;
    show(state());
    document.getElementById("notify-toggle").addEventListener("click", function () {
      if (state() === "on") {
        keep(false);
        show(state());
        return;
      }
      Notification.requestPermission().then(function (answer) {
        keep(answer === "granted");
        show(state());
      });
    });
  });
})();
