// Keyboard shortcuts of the inbox and the decision page (docs/ui/keyboard.md). The page
// says which keys it has: each place a key reaches carries data-shortcut (j and k step
// through those marked "j"), a control reached by its own key names it in
// aria-keyshortcuts too, so a screen reader says the key with the control; the help
// dialog (_shortcuts.html, opened by ?) lists them in the page's language.
//
// A shortcut only moves the focus, or opens a link; it never decides. A reviewer who
// presses a lands on the Approve button, hears what it approves, and approves with
// Enter, as with a click: the form's own checks and passkeys.js still run.
// Never inside a text field, a select or contenteditable (the key is typing there), nor
// with Ctrl, Alt or Meta held (those are the browser's and the system's).
// A file under /static, not inline script: the CSP allows only script-src 'self'.
(function () {
  "use strict";
  var TYPING = "input, textarea, select, [contenteditable]:not([contenteditable='false'])";
  // Inputs that take no typed text: a key there is free (j from a ticked box).
  var NOT_TYPED = { checkbox: true, radio: true, button: true, submit: true, reset: true };

  function typingIn(target) {
    var field = target && target.closest && target.closest(TYPING);
    if (!field) return false;
    return !(field.tagName === "INPUT" && NOT_TYPED[field.type]);
  }

  function visible(element) {
    return element.getClientRects().length > 0 && !element.disabled;
  }

  function reached(key) {
    var all = document.querySelectorAll('[data-shortcut="' + key + '"]');
    var shown = [];
    for (var i = 0; i < all.length; i++) if (visible(all[i])) shown.push(all[i]);
    return shown;
  }

  // The control of `key` in the part of the page the reviewer is in (the request whose
  // section holds the focus), else the first on the page.
  function nearest(key) {
    var shown = reached(key);
    var here = document.activeElement && document.activeElement.closest("[data-shortcut-scope]");
    for (var i = 0; i < shown.length; i++) {
      if (here && here.contains(shown[i])) return shown[i];
    }
    return shown[0] || null;
  }

  function focusOn(element) {
    element.focus();
    element.scrollIntoView({ block: "center" });
  }

  // j and k: the next or previous of the page's places (the inbox's request links, the
  // decision page's requests), from the one that holds the focus.
  function step(by) {
    var places = reached("j");
    if (!places.length) return;
    var at = -1;
    for (var i = 0; i < places.length; i++) {
      var place = places[i];
      if (place === document.activeElement || place.contains(document.activeElement)) at = i;
      var scope = place.closest("[data-shortcut-scope]");
      if (at < 0 && scope && scope !== document.body && scope.contains(document.activeElement)) {
        at = i;
      }
    }
    var next = at < 0 ? (by > 0 ? 0 : places.length - 1) : at + by;
    if (next < 0 || next >= places.length) return;
    focusOn(places[next]);
  }

  // The dialog gives the focus back where it was when it opened (Escape or Close).
  var before = null;

  function openHelp() {
    var help = document.getElementById("shortcuts-help");
    if (!help || help.open) return;
    before = document.activeElement;
    help.showModal();
  }

  var ACTIONS = {
    j: function () { step(1); },
    k: function () { step(-1); },
    o: function () {
      var link = document.activeElement;
      if (!link || link.getAttribute("data-shortcut") !== "j" || !link.href) {
        link = nearest("j");
      }
      if (link && link.href) link.click();
    },
    "?": openHelp,
  };

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.isComposing) return;
    if (!document.getElementById("shortcuts-help")) return; // a page without shortcuts
    if (event.ctrlKey || event.altKey || event.metaKey) return;
    if (typingIn(event.target)) return;
    if (document.querySelector("dialog[open]")) return; // Escape closes it natively
    var key = event.key;
    // ? takes Shift on most keyboards; a letter with Shift is not its shortcut.
    if (key !== "?" && (event.shiftKey || key.length !== 1)) return;
    key = key.toLowerCase();
    var run = ACTIONS[key];
    if (!run && !document.querySelector('[data-shortcut="' + key + '"]')) return;
    event.preventDefault();
    if (run) {
      run();
      return;
    }
    var control = nearest(key);
    if (!control) return;
    if (control.tagName === "A") control.click();
    else focusOn(control);
  });

  document.addEventListener("click", function (event) {
    var target = event.target;
    if (!target || !target.closest) return;
    if (target.closest("#shortcuts-open")) openHelp();
    if (target.closest("#shortcuts-close")) document.getElementById("shortcuts-help").close();
  });

  document.addEventListener("DOMContentLoaded", function () {
    var opener = document.getElementById("shortcuts-open");
    if (opener) opener.hidden = false; // without this script the button could do nothing
    var help = document.getElementById("shortcuts-help");
    if (!help) return;
    help.addEventListener("close", function () {
      // A poll may have swapped that element for a new one meanwhile: the same id.
      var back = before && !before.isConnected && before.id ? document.getElementById(before.id) : before;
      if (back && back.isConnected && back !== document.body) back.focus();
      before = null;
    });
  });
})();
