// The reviewer's local time as a tooltip on every <time class="utc">: the page prints
// UTC (to the second, offset named); the browser knows where the reviewer is.
// A file under /static, not inline script: the CSP allows only script-src 'self'.
(function () {
  "use strict";
  // In the page's language (<html lang>, and the phrase the server put in
  // data-countdown-words); English without them.
  var language = document.documentElement.lang || undefined;
  var phrase = "Your local time: {0}";
  try {
    phrase = JSON.parse(document.documentElement.getAttribute("data-countdown-words")).local || phrase;
  } catch (error) { /* the English phrase */ }
  function label(root) {
    var times = (root || document).querySelectorAll("time.utc[datetime]");
    for (var i = 0; i < times.length; i++) {
      var at = new Date(times[i].getAttribute("datetime"));
      if (isNaN(at.getTime())) continue;
      times[i].title = phrase.replace("{0}", at.toLocaleString(language, {
        year: "numeric", month: "short", day: "numeric",
        hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short"
      }));
    }
  }
  document.addEventListener("DOMContentLoaded", function () { label(document); });
  // htmx replaces parts of a page (the inbox, a run that is still going): label them too.
  document.addEventListener("htmx:afterSettle", function (event) { label(event.target); });
})();
