// Live "time left" of pending actions: every element with data-expires-at (an ISO
// time) is rewritten each second in the words the server uses (time_format.py): the
// page's language gives them in <html data-countdown-words>, as Babel and the catalog
// spell them; without it, English. A clock with data-bare says the duration alone
// ("23 hr 58 min"): its label already says "Time left".
// A file under /static, not inline script: the CSP allows only script-src 'self'.
(function () {
  "use strict";
  var ENGLISH = {
    units: { hours: ["{0} hr", "{0} hr"], minutes: ["{0} min", "{0} min"], seconds: ["{0} sec", "{0} sec"] },
    left: "{0} left", ago: "expired {0} ago", moments: "expired moments ago"
  };
  function words() {
    try {
      return JSON.parse(document.documentElement.getAttribute("data-countdown-words")) || ENGLISH;
    } catch (error) {
      return ENGLISH;
    }
  }
  function unit(said, name, count) {
    return said.units[name][count === 1 ? 0 : 1].replace("{0}", count);
  }
  function timeLeft(said, expiresAt, now, bare) {
    var seconds = Math.trunc((expiresAt - now) / 1000);
    if (seconds <= 0) {
      var ago = -seconds;
      return ago >= 60 ? said.ago.replace("{0}", unit(said, "minutes", Math.floor(ago / 60))) : said.moments;
    }
    if (seconds < 60) return left(said, unit(said, "seconds", seconds), bare);
    var minutes = Math.floor(seconds / 60);
    var hours = Math.floor(minutes / 60);
    minutes = minutes % 60;
    var duration = hours
      ? unit(said, "hours", hours) + " " + unit(said, "minutes", minutes)
      : unit(said, "minutes", minutes);
    return left(said, duration, bare);
  }
  function left(said, duration, bare) {
    return bare ? duration : said.left.replace("{0}", duration);
  }
  var said = null;
  function tick() {
    said = said || words();
    var now = Date.now();
    var clocks = document.querySelectorAll("[data-expires-at]");
    for (var i = 0; i < clocks.length; i++) {
      var expiresAt = Date.parse(clocks[i].getAttribute("data-expires-at"));
      var bare = clocks[i].hasAttribute("data-bare");
      if (!isNaN(expiresAt)) clocks[i].textContent = timeLeft(said, expiresAt, now, bare);
    }
  }
  setInterval(tick, 1000);
  document.addEventListener("DOMContentLoaded", tick);
})();
