// Live "time left" of pending actions: every element with data-expires-at (an ISO
// time) is rewritten each second in the words the server uses (signoff.pending.time_left).
// A file under /static, not inline script: the CSP allows only script-src 'self'.
(function () {
  "use strict";
  function timeLeft(expiresAt, now) {
    var seconds = Math.trunc((expiresAt - now) / 1000);
    if (seconds <= 0) {
      var ago = -seconds;
      return ago >= 60 ? "expired " + Math.floor(ago / 60) + " min ago" : "expired moments ago";
    }
    if (seconds < 60) return seconds + " s left";
    var minutes = Math.floor(seconds / 60);
    var hours = Math.floor(minutes / 60);
    minutes = minutes % 60;
    return hours ? hours + " h " + minutes + " min left" : minutes + " min left";
  }
  function tick() {
    var now = Date.now();
    var clocks = document.querySelectorAll("[data-expires-at]");
    for (var i = 0; i < clocks.length; i++) {
      var expiresAt = Date.parse(clocks[i].getAttribute("data-expires-at"));
      if (!isNaN(expiresAt)) clocks[i].textContent = timeLeft(expiresAt, now);
    }
  }
  setInterval(tick, 1000);
  document.addEventListener("DOMContentLoaded", tick);
})();
