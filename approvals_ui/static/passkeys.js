// Passkeys (WebAuthn) in the reviewer UI: registering one (the Passkeys page), and
// approving with one where the policy asks (the decision page). A file under /static,
// not inline script: the CSP allows only script-src 'self'. No library: the server's
// options come as JSON with base64url fields, which the helpers below turn into bytes.
(function () {
  "use strict";

  function toBase64url(buffer) {
    var bytes = new Uint8Array(buffer);
    var text = "";
    for (var i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i]);
    return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function fromBase64url(text) {
    var base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    while (base64.length % 4) base64 += "=";
    var binary = atob(base64);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  }

  function descriptors(list) {
    return (list || []).map(function (item) {
      return { type: item.type, id: fromBase64url(item.id), transports: item.transports };
    });
  }

  // The page's words (data-passkey-words on <html>, in the page's language); English
  // when a page has none.
  var WORDS = {
    registered: "Your passkey is registered.",
    signed: "Passkey signed; sending your decision…",
    failed: "Nothing was decided or stored: {0}",
    refused: "The server refused ({0})."
  };
  try {
    var given = JSON.parse(document.documentElement.getAttribute("data-passkey-words") || "{}");
    for (var name in WORDS) if (typeof given[name] === "string") WORDS[name] = given[name];
  } catch (ignored) { /* keep English */ }

  function words(name, value) {
    return WORDS[name].replace("{0}", value === undefined ? "" : value);
  }

  function say(element, message) {
    if (!element) return;
    element.textContent = message;
    element.hidden = false;
  }

  async function answerOf(response) {
    var body = {};
    try { body = await response.json(); } catch (ignored) { body = {}; }
    if (!response.ok) throw new Error(body.detail || words("refused", response.status));
    return body;
  }

  async function register(button) {
    var status = document.getElementById("passkey-status");
    var csrf = button.getAttribute("data-csrf");
    var headers = { "X-CSRF-Token": csrf };
    var options = await answerOf(await fetch("/passkeys/options", { method: "POST", headers: headers, credentials: "same-origin" }));
    var publicKey = {
      rp: options.rp,
      user: { id: fromBase64url(options.user.id), name: options.user.name, displayName: options.user.displayName },
      challenge: fromBase64url(options.challenge),
      pubKeyCredParams: options.pubKeyCredParams,
      timeout: options.timeout,
      excludeCredentials: descriptors(options.excludeCredentials),
      authenticatorSelection: options.authenticatorSelection,
      attestation: options.attestation
    };
    var credential = await navigator.credentials.create({ publicKey: publicKey });
    var response = credential.response;
    var body = {
      id: credential.id,
      rawId: toBase64url(credential.rawId),
      type: credential.type,
      response: {
        clientDataJSON: toBase64url(response.clientDataJSON),
        attestationObject: toBase64url(response.attestationObject),
        transports: response.getTransports ? response.getTransports() : []
      },
      clientExtensionResults: credential.getClientExtensionResults(),
      authenticatorAttachment: credential.authenticatorAttachment
    };
    headers["Content-Type"] = "application/json";
    await answerOf(await fetch("/passkeys", { method: "POST", headers: headers, credentials: "same-origin", body: JSON.stringify(body) }));
    say(status, words("registered"));
    window.location.reload();
  }

  async function approve(form) {
    var status = form.querySelector(".passkey-status");
    var fields = new URLSearchParams(new FormData(form));
    var challenge = await answerOf(await fetch(form.getAttribute("data-challenge-url"), { method: "POST", body: fields, credentials: "same-origin" }));
    var options = challenge.options;
    var credential = await navigator.credentials.get({
      publicKey: {
        challenge: fromBase64url(options.challenge),
        rpId: options.rpId,
        timeout: options.timeout,
        userVerification: options.userVerification,
        allowCredentials: descriptors(options.allowCredentials)
      }
    });
    var response = credential.response;
    var assertion = {
      id: credential.id,
      type: credential.type,
      response: {
        authenticatorData: toBase64url(response.authenticatorData),
        clientDataJSON: toBase64url(response.clientDataJSON),
        signature: toBase64url(response.signature),
        userHandle: response.userHandle ? toBase64url(response.userHandle) : null
      }
    };
    form.elements["passkey_issued_at"].value = challenge.issued_at;
    form.elements["passkey_nonce"].value = challenge.nonce;
    form.elements["passkey_assertion"].value = JSON.stringify(assertion);
    say(status, words("signed"));
    form.submit();  // a plain post: the server answers with the page, as without a passkey
  }

  function failed(element) {
    return function (error) { say(element, words("failed", error.message)); };
  }

  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("register-passkey");
    if (button) {
      button.addEventListener("click", function () {
        register(button).catch(failed(document.getElementById("passkey-status")));
      });
    }
    var forms = document.querySelectorAll("form[data-passkey='required']");
    for (var i = 0; i < forms.length; i++) {
      forms[i].addEventListener("submit", function (event) {
        event.preventDefault();
        var form = event.currentTarget;
        approve(form).catch(failed(form.querySelector(".passkey-status")));
      });
    }
  });
})();
