// Portal behaviour: small progressive enhancements over pages that work without JS.
//
// The CSP is script-src 'self' and style-src 'self': nothing here evaluates strings or
// writes style attributes in markup; views opt in with data-* attributes:
//
//   <meta name="csrf-token" content="...">  token sent as X-CSRF-Token on every htmx request
//   data-autosubmit             on a filter form: submit (or let htmx request) on change;
//                               search inputs also after typing pauses. Not with hx-trigger=change.
//                               data-no-autosubmit on a field: not on its change event (a search box
//                               that fetches as the person types, whose blur must not fetch again
//                               after a result was chosen), still after typing pauses.
//   data-print                  on a button: window.print()
//   data-copy="text"            on a button: copy the text (or, with data-copy-target="#id",
//                               that element's text); data-copied="Copied" swaps the label briefly
//   data-dismiss                on a button inside an .alert: remove the alert
//                               (data-dismiss="#id" removes that element instead)
//   data-network-error="Text"   on #alerts: shown when an htmx request cannot reach the server
//   data-no-busy                on a POST form that answers with a download: keep its buttons
//                               enabled (others are disabled while the submission is on its way)
//   data-live                   on an element that polls (hx-get + hx-trigger="every …"): no poll
//                               while the page is hidden (a tab in the background); one at once
//                               when it shows again; a poll that fails waits for the next
//   data-date-echo="id"         on an <output> beside a date or month field: what is typed, as the portal
//                               reads it (data-phrase, data-months: see below)
//   data-sum                    on a form: keep a total of what is ticked, as it is ticked. It adds
//                               every checked box's data-amount and every [data-sum-fixed] element's
//                               amount (whole rupiah), writes it to [data-sum-output] the way the
//                               server prints rupiah, to [data-sum-input] (a hidden field: the total
//                               the person saw, which the server checks) as a plain number, and the
//                               count of ticked boxes to [data-sum-count] from its data-count-one /
//                               data-count-other texts ("{n}" stands for the number). The server
//                               always works the total out again.
//
// Classes .js-only / .js-hide (see app.css) show or hide controls depending on whether this
// script runs, e.g. the "Apply" button of an autosubmit filter form, or a print button.
//
// htmx itself is configured by the layout's <meta name="htmx-config"> (allowEval false,
// allowScriptTags false, includeIndicatorStyles false), which must stay in the layout.
(function () {
  "use strict";

  var doc = document;
  doc.documentElement.classList.add("js");

  function csrfToken() {
    var meta = doc.querySelector('meta[name="csrf-token"]');
    return meta ? meta.getAttribute("content") : "";
  }

  // --- CSRF header for htmx -------------------------------------------------------------
  doc.addEventListener("htmx:configRequest", function (e) {
    var token = csrfToken();
    if (token) {
      e.detail.headers["X-CSRF-Token"] = token;
    }
  });

  // --- double-submit guard on submit --------------------------------------------------------
  // (An action that asks first does so with a page of its own, served by its POST until the
  // form says confirm=yes: no window.confirm, which does nothing without JavaScript.)
  doc.addEventListener("submit", function (e) {
    guardDoubleSubmit(e.target, e);
  }, true);

  // --- double-submit guard ---------------------------------------------------------------
  // Recording a payment twice is the expensive mistake: a POST form's buttons are disabled
  // once it is on its way. Disabling waits a tick so the clicked button's name/value is
  // still part of the submission.
  function guardDoubleSubmit(form, e) {
    if ((form.getAttribute("method") || "get").toLowerCase() !== "post" || isHtmx(form) || form.hasAttribute("data-no-busy")) {
      return;
    }
    setTimeout(function () {
      if (!e.defaultPrevented) {
        setBusy(form, true);
      }
    }, 0);
  }

  function isHtmx(el) {
    return ["hx-post", "hx-put", "hx-patch", "hx-delete", "hx-get", "data-hx-post", "data-hx-get"].some(function (a) {
      return el.hasAttribute(a);
    });
  }

  function setBusy(form, busy) {
    form.querySelectorAll("button[type=submit], button:not([type]), input[type=submit]").forEach(function (b) {
      if (busy && !b.disabled) {
        b.disabled = true;
        b.setAttribute("data-busy-disabled", "");
      } else if (!busy && b.hasAttribute("data-busy-disabled")) {
        b.disabled = false;
        b.removeAttribute("data-busy-disabled");
      }
    });
    if (busy) {
      form.setAttribute("aria-busy", "true");
    } else {
      form.removeAttribute("aria-busy");
    }
  }

  doc.addEventListener("htmx:beforeRequest", function (e) {
    var el = e.detail.elt;
    if (el && el.tagName === "FORM" && (e.detail.requestConfig || {}).verb !== "get") {
      setBusy(el, true);
    }
  });
  doc.addEventListener("htmx:afterRequest", function (e) {
    var el = e.detail.elt;
    if (el && el.tagName === "FORM") {
      setBusy(el, false);
    }
  });
  // Coming back through the browser's history shows the page as it was left: buttons disabled.
  window.addEventListener("pageshow", function (e) {
    if (e.persisted) {
      doc.querySelectorAll("form[aria-busy]").forEach(function (f) { setBusy(f, false); });
    }
  });

  // --- data-autosubmit -------------------------------------------------------------------
  function submitForm(form) {
    if (typeof form.requestSubmit === "function") {
      form.requestSubmit();
      return;
    }
    var ev = new Event("submit", { bubbles: true, cancelable: true });
    if (form.dispatchEvent(ev)) {
      form.submit();
    }
  }

  doc.addEventListener("change", function (e) {
    var form = e.target.form || (e.target.closest && e.target.closest("form"));
    if (form && form.hasAttribute("data-autosubmit") && !e.target.hasAttribute("data-no-autosubmit") && !triggersOnChange(form)) {
      submitForm(form);
    }
  });

  // A form that already asks htmx to fire on change would otherwise send twice.
  function triggersOnChange(form) {
    var trig = form.getAttribute("hx-trigger") || form.getAttribute("data-hx-trigger") || "";
    return /\b(change|input|keyup)\b/.test(trig);
  }

  // Search boxes submit after typing stops, not only on blur.
  var searchTimer = 0;
  doc.addEventListener("input", function (e) {
    var el = e.target;
    if (el.type !== "search" || !el.form || !el.form.hasAttribute("data-autosubmit") || triggersOnChange(el.form)) {
      return;
    }
    clearTimeout(searchTimer);
    searchTimer = setTimeout(function () { submitForm(el.form); }, 500);
  });

  // --- data-print, data-copy, data-dismiss --------------------------------------------------
  doc.addEventListener("click", function (e) {
    var el = e.target.closest && e.target.closest("[data-print], [data-copy], [data-copy-target], [data-dismiss]");
    if (!el) {
      return;
    }
    if (el.hasAttribute("data-print")) {
      e.preventDefault();
      window.print();
    } else if (el.hasAttribute("data-copy") || el.hasAttribute("data-copy-target")) {
      e.preventDefault();
      copy(el);
    } else if (el.hasAttribute("data-dismiss")) {
      e.preventDefault();
      var sel = el.getAttribute("data-dismiss");
      var target = sel ? doc.querySelector(sel) : el.closest(".alert, [data-dismissible]");
      if (target) {
        target.remove();
      }
    }
  });

  function copy(btn) {
    var text = btn.getAttribute("data-copy");
    var sel = btn.getAttribute("data-copy-target");
    if (sel) {
      var src = doc.querySelector(sel);
      text = src ? (src.value !== undefined && src.tagName !== "BUTTON" ? src.value : src.textContent) : "";
    }
    text = (text || "").trim();
    if (!text) {
      return;
    }
    var done = function () { copied(btn); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { legacyCopy(text) && done(); });
    } else if (legacyCopy(text)) {
      done();
    }
  }

  // Plain-HTTP intranets have no navigator.clipboard; execCommand still works there.
  function legacyCopy(text) {
    var ta = doc.createElement("textarea");
    ta.value = text;
    ta.setAttribute("readonly", "");
    ta.className = "visually-hidden";
    doc.body.appendChild(ta);
    ta.select();
    var ok = false;
    try {
      ok = doc.execCommand("copy");
    } catch (err) {
      ok = false;
    }
    ta.remove();
    return ok;
  }

  function copied(btn) {
    var label = btn.getAttribute("data-copied");
    btn.classList.add("is-copied");
    if (label && !btn.hasAttribute("data-label")) {
      btn.setAttribute("data-label", btn.textContent);
      btn.textContent = label;
    }
    setTimeout(function () {
      btn.classList.remove("is-copied");
      if (btn.hasAttribute("data-label")) {
        btn.textContent = btn.getAttribute("data-label");
        btn.removeAttribute("data-label");
      }
    }, 1500);
  }

  // --- data-sum ---------------------------------------------------------------------------
  // The same format as i18n.Rupiah: "Rp", a no-break space, dots between thousands.
  function rupiah(n) {
    var sign = n < 0 ? "-" : "";
    return sign + "Rp\u00a0" + groupDigits(Math.abs(n));
  }

  function groupDigits(n) {
    return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ".");
  }

  function updateSum(form) {
    var total = 0;
    var count = 0;
    form.querySelectorAll("input[type=checkbox][data-amount]").forEach(function (box) {
      if (box.checked && !box.disabled) {
        total += parseInt(box.getAttribute("data-amount"), 10) || 0;
        count++;
      }
    });
    form.querySelectorAll("[data-sum-fixed]").forEach(function (el) {
      total += parseInt(el.getAttribute("data-sum-fixed"), 10) || 0;
    });
    form.querySelectorAll("[data-sum-output]").forEach(function (el) { el.textContent = rupiah(total); });
    form.querySelectorAll("[data-sum-input]").forEach(function (el) { el.value = String(total); });
    form.querySelectorAll("[data-sum-count]").forEach(function (el) {
      var text = el.getAttribute(count === 1 ? "data-count-one" : "data-count-other");
      if (text) {
        el.textContent = text.replace("{n}", groupDigits(count));
      }
    });
  }

  doc.addEventListener("change", function (e) {
    var form = e.target.closest && e.target.closest("form[data-sum]");
    if (form && e.target.matches("input[type=checkbox][data-amount]")) {
      updateSum(form);
    }
  });
  // A page (or an htmx swap) may arrive with boxes already ticked, or restored by the
  // browser's history: start from what is ticked now.
  function initSums() {
    doc.querySelectorAll("form[data-sum]").forEach(updateSum);
  }
  doc.addEventListener("DOMContentLoaded", function () { initSums(); });
  window.addEventListener("pageshow", function () { initSums(); });
  doc.addEventListener("htmx:afterSettle", function () { initSums(); });

  // --- data-live: figures that keep themselves current ------------------------------------
  // A hidden page does not ask (a dashboard left open in a background tab costs nothing);
  // shown again, it asks at once rather than at the next tick.
  doc.addEventListener("htmx:beforeRequest", function (e) {
    var el = e.detail.elt;
    if (el && el.hasAttribute && el.hasAttribute("data-live") && doc.visibilityState === "hidden" &&
        (e.detail.requestConfig || {}).verb === "get" && isPoll(e)) {
      e.preventDefault();
    }
  });
  function isPoll(e) {
    var trig = (e.detail.requestConfig || {}).triggeringEvent;
    return !trig || trig.type !== "live:show";
  }
  doc.addEventListener("visibilitychange", function () {
    if (doc.visibilityState !== "visible" || !window.htmx) {
      return;
    }
    doc.querySelectorAll("[data-live]").forEach(function (el) {
      window.htmx.trigger(el, "live:show");
    });
  });
  // A poll that could not reach the server is not worth an alert: the next one tries again.
  function livePollFailed(e) {
    var el = e.detail && e.detail.elt;
    return !!(el && el.hasAttribute && el.hasAttribute("data-live"));
  }

  // --- network errors during htmx requests ----------------------------------------------
  // Without this a dead connection looks like a button that does nothing.
  function networkError() {
    var box = doc.getElementById("alerts");
    var text = box && box.getAttribute("data-network-error");
    if (!text) {
      return;
    }
    var div = doc.createElement("div");
    div.className = "alert alert--error";
    div.setAttribute("role", "alert");
    div.textContent = text;
    box.replaceChildren(div);
  }
  doc.addEventListener("htmx:sendError", function (e) { if (!livePollFailed(e)) { networkError(); } });
  doc.addEventListener("htmx:timeout", function (e) { if (!livePollFailed(e)) { networkError(); } });

  // --- data-date-echo ---------------------------------------------------------------------
  // Beside a date field, the day as the portal reads it, in the page's words: a browser
  // may show the field as mm/dd/yyyy. The output carries its phrase (data-phrase, "{d}"
  // for the day) and the months' short names (data-months, comma-separated).
  function echoDate(out) {
    var input = doc.getElementById(out.getAttribute("data-date-echo"));
    var m = input && /^(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(input.value.trim());
    var months = (out.getAttribute("data-months") || "").split(",");
    var month = m ? parseInt(m[2], 10) : 0;
    if (!m || months.length !== 12 || month < 1 || month > 12) {
      out.textContent = "";
      return;
    }
    // A month field (or a browser's text box standing for one) reads "Jul 2026".
    var day = (m[3] ? parseInt(m[3], 10) + " " : "") + months[month - 1] + " " + m[1];
    out.textContent = (out.getAttribute("data-phrase") || "{d}").replace("{d}", day);
  }
  function onDateInput(e) {
    var id = e.target && e.target.id;
    if (!id || !doc.querySelector('[data-date-echo="' + id + '"]')) {
      return;
    }
    doc.querySelectorAll("[data-date-echo]").forEach(function (out) {
      if (out.getAttribute("data-date-echo") === id) {
        echoDate(out);
      }
    });
  }
  doc.addEventListener("input", onDateInput);
  doc.addEventListener("change", onDateInput);
})();
