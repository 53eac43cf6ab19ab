// Mnemo inspector: asks before a form marked data-confirm (on the form or its button) is sent.
// Part of Mnemo, Apache-2.0. Without this script the forms still work; the server-side
// confirmation page still guards bulk deletion.
"use strict";
document.addEventListener("submit", function (event) {
  var button = event.submitter;
  var message = (button && button.getAttribute("data-confirm")) || event.target.getAttribute("data-confirm");
  if (message && !window.confirm(message)) {
    event.preventDefault();
  }
});
