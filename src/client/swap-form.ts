// The swap form of a widget or referral link: the coin icons, a live quote as the amount or coins
// change (a fixed one counts down and is taken again when it runs out), and the addresses
// checked against the API's own rules as they are typed. The form posts without any of this.

const QUOTE_DELAY_MS = 350;
const CHECK_DELAY_MS = 300;

type Quote = {
  amount_from: number;
  amount_to: number;
  min_amount: number;
  max_amount: number;
  quote_id: string | null;
  expires_in: number | null;
};

function debounce(fn: () => void, ms: number): () => void {
  let t = 0;
  return () => {
    clearTimeout(t);
    t = window.setTimeout(fn, ms);
  };
}

const fmt = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 8 });

export function initSwapForm(): void {
  const form = document.querySelector<HTMLFormElement>("form[data-swap-form]");
  if (!form) return;
  const field = <T extends Element>(sel: string) => form.querySelector<T>(sel);
  const from = field<HTMLSelectElement>("select[name=from]");
  const to = field<HTMLSelectElement>("select[name=to]");
  const amount = field<HTMLInputElement>("input[name=amount_from]");
  const amountTo = field<HTMLInputElement>("input[name=amount_to]");
  const side = field<HTMLInputElement>("[data-amount-side]");
  const out = field<HTMLOutputElement>("[data-quote-out]");
  const note = field<HTMLElement>("[data-quote-note]");
  const quoteId = field<HTMLInputElement>("[data-quote-id]");
  if (!from || !to || !amount || !amountTo || !side || !out || !note || !quoteId) return;
  const rateType = () => field<HTMLInputElement>("input[name=rate_type]:checked")?.value ?? "float";
  let seq = 0;
  let expiry = 0;

  for (const select of [from, to]) {
    const icon = form.querySelector<HTMLImageElement>(`img[data-icon-for=${select.name}]`);
    const sync = () => {
      const src = select.selectedOptions[0]?.dataset.icon ?? "";
      if (icon) {
        icon.hidden = !src;
        if (src) icon.src = src;
      }
    };
    select.addEventListener("change", sync);
    sync();
  }

  const memo = field<HTMLElement>("[data-memo-field]");
  const syncMemo = () => {
    if (memo) memo.hidden = to.selectedOptions[0]?.dataset.memo !== "1";
  };
  to.addEventListener("change", syncMemo);
  syncMemo();

  const requote = async () => {
    const mine = ++seq;
    clearTimeout(expiry);
    quoteId.value = "";
    // The amount typed last is the one quoted; the other side shows the quote's answer.
    const reverse = side.value === "to";
    const [typed, other] = reverse ? [amountTo, amount] : [amount, amountTo];
    const value = typed.value.trim();
    if (!/^\d+(\.\d+)?$/.test(value) || Number(value) <= 0) {
      other.value = "";
      out.textContent = "—";
      note.textContent = "";
      return;
    }
    const params = new URLSearchParams({
      from: from.value,
      to: to.value,
      [reverse ? "amount_to" : "amount"]: value,
      rate_type: rateType(),
    });
    const base = form.dataset.quoteUrl ?? "";
    const url = `${base}${base.includes("?") ? "&" : "?"}${params}`;
    try {
      const res = await fetch(url, { cache: "no-store" });
      const body = (await res.json()) as Quote & { detail?: string };
      if (mine !== seq) return;
      if (!res.ok) {
        out.textContent = "—";
        note.textContent = body.detail ?? "No quote for this pair right now.";
        note.classList.add("error");
        return;
      }
      note.classList.remove("error");
      const [coin, answer] = reverse
        ? [from.value.split(":")[0] ?? "", body.amount_from]
        : [to.value.split(":")[0] ?? "", body.amount_to];
      out.textContent = `${rateType() === "fixed" ? "" : "≈ "}${fmt(answer)} ${coin}${reverse ? " to send" : ""}`;
      // Plain digits: a fixed quote is locked for exactly this amount to send.
      other.value = answer.toLocaleString("en-US", { maximumFractionDigits: 18, useGrouping: false });
      const limits = `Min ${fmt(body.min_amount)}, max ${fmt(body.max_amount)} ${from.value.split(":")[0]}.`;
      if (body.quote_id && body.expires_in) {
        quoteId.value = body.quote_id;
        const ends = Date.now() + body.expires_in * 1000;
        const tick = () => {
          const left = Math.max(0, Math.round((ends - Date.now()) / 1000));
          note.textContent = `Rate fixed for ${left} s. ${limits}`;
          expiry = window.setTimeout(left > 0 ? tick : requote, left > 0 ? 1000 : 0);
        };
        tick();
      } else note.textContent = limits;
    } catch {
      if (mine === seq) note.textContent = "Could not get a quote; check your connection.";
    }
  };
  const later = debounce(() => void requote(), QUOTE_DELAY_MS);
  for (const [input, which] of [
    [amount, "from"],
    [amountTo, "to"],
  ] as const)
    input.addEventListener("input", () => {
      side.value = which;
      later();
    });
  for (const el of form.querySelectorAll("select[name=from], select[name=to], input[name=rate_type]"))
    el.addEventListener("change", later);
  void requote();

  for (const input of form.querySelectorAll<HTMLInputElement>("input[data-check]")) {
    const kind = input.dataset.check;
    const hint = form.querySelector<HTMLElement>(`[data-check-out=${kind}]`);
    const check = async () => {
      const address = input.value.trim();
      const network = (kind === "refund" ? from : to).value.split(":")[1] ?? "";
      if (!address || !hint) {
        input.removeAttribute("aria-invalid");
        if (hint) hint.textContent = "";
        return;
      }
      const base = form.dataset.checkUrl ?? "";
      const params = new URLSearchParams({ network, address });
      try {
        const res = await fetch(`${base}${base.includes("?") ? "&" : "?"}${params}`, { cache: "no-store" });
        const r = (await res.json()) as { ok: boolean; detail?: string };
        if (input.value.trim() !== address) return;
        input.setAttribute("aria-invalid", String(!r.ok));
        hint.textContent = r.ok ? `Valid ${network} address.` : (r.detail ?? "Not a valid address.");
        hint.classList.toggle("error", !r.ok);
      } catch {
        // Offline: the server checks again on submit.
      }
    };
    const soon = debounce(() => void check(), CHECK_DELAY_MS);
    input.addEventListener("input", soon);
    (kind === "refund" ? from : to).addEventListener("change", soon);
  }
  form.addEventListener("submit", () => {
    const button = form.querySelector<HTMLButtonElement>("button[type=submit]");
    if (button) button.disabled = true;
  });
}
