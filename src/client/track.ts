import { localTimes } from "./local-time";
import { initSwapForm } from "./swap-form";

// The end user's pages (tracking, widget, referral): copy buttons, the deposit countdown, live
// updates of a tracking page, and the embedded frame's height for widget.js. Each part finds its
// elements by data attributes and does nothing on a page without them.
function copyButtons(): void {
  for (const b of document.querySelectorAll<HTMLButtonElement>("button[data-copy]")) {
    b.hidden = false;
    b.addEventListener("click", () => {
      const target = document.getElementById(b.dataset.copy ?? "");
      const label = b.textContent;
      void navigator.clipboard?.writeText(target?.textContent?.trim() ?? "").then(() => {
        b.textContent = "Copied";
        setTimeout(() => {
          b.textContent = label;
        }, 1500);
      });
    });
  }
}

const pad = (n: number) => String(n).padStart(2, "0");

function countdowns(): void {
  for (const el of document.querySelectorAll<HTMLElement>("[data-countdown]")) {
    const end = Date.parse(el.dataset.countdown ?? "");
    if (!Number.isFinite(end)) continue;
    const tick = () => {
      const left = Math.max(0, Math.round((end - Date.now()) / 1000));
      el.textContent = left === 0 ? "expired" : `${Math.floor(left / 60)}:${pad(left % 60)} left`;
      if (left > 0) setTimeout(tick, 1000);
      else el.dispatchEvent(new CustomEvent("countdown-end", { bubbles: true }));
    };
    tick();
  }
}

/** Polls the keyless status API; when the order changed, renders the page again. */
function followOrder(): void {
  const main = document.querySelector<HTMLElement>("main[data-track]");
  if (!main || main.dataset.final === "true") return;
  const id = main.dataset.track;
  const seen = main.dataset.updatedAt;
  const every = Number(main.dataset.pollMs ?? "5000");
  const poll = async () => {
    try {
      const res = await fetch(`/api/v1/orders/${id}/status`, { cache: "no-store" });
      if (res.ok) {
        const s = (await res.json()) as { updated_at: string };
        if (s.updated_at !== seen) {
          location.reload();
          return;
        }
      }
    } catch {
      // Offline for a moment: try again at the next tick.
    }
    setTimeout(poll, every);
  };
  setTimeout(poll, every);
}

/** Inside widget.js's iframe: tells the embedding page how tall the content is. */
function reportHeight(): void {
  const parentOrigin = document.body.dataset.parentOrigin;
  if (window.parent === window || !parentOrigin) return;
  let last = 0;
  const send = () => {
    const h = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (h === last) return;
    last = h;
    window.parent.postMessage({ type: "swap-widget:height", height: h }, parentOrigin);
  };
  new ResizeObserver(send).observe(document.documentElement);
  send();
}

copyButtons();
countdowns();
localTimes();
followOrder();
initSwapForm();
reportHeight();
