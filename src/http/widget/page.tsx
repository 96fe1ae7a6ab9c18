import { TURNSTILE_ACTION } from "../../adapters/turnstile";
// The swap form of a widget and of a referral link: coins with icons, the amount, float or fixed,
// the payout address (or the widget's locked one), an optional refund address. A plain form post
// that works without JavaScript; the script adds live quotes, the fixed rate's countdown and
// address checks as you type.
import type { CurrencyRow } from "../../domain/currency";
import { iconUrl } from "../../domain/icons";
import { offersCoin, type Widget } from "../../domain/widget";
import { ICON_HASHES } from "../../generated/icons";

export interface SwapFormValues {
  from?: string | undefined;
  to?: string | undefined;
  amount_from?: string | undefined;
  amount_to?: string | undefined;
  side?: string | undefined;
  rate_type?: string | undefined;
  recipient_address?: string | undefined;
  recipient_address_tag?: string | undefined;
  refund_address?: string | undefined;
}

export interface SwapFormProps {
  widget: Widget;
  catalog: CurrencyRow[];
  /** Where the form posts and quotes: /widget/{wid} or /swap (with ?ref=). */
  action: string;
  quoteUrl: string;
  checkUrl: string;
  nonce: string;
  values: SwapFormValues;
  error?: string | undefined;
  turnstileSiteKey?: string | undefined;
  /** On the referral page (no partner's site around it): the partner whose swap this is. */
  offeredBy?: string | undefined;
}

const key = (c: Pick<CurrencyRow, "coin" | "network">) => `${c.coin}:${c.network}`;

function CoinSelect(props: { name: string; label: string; options: CurrencyRow[]; value: string }) {
  const selected = props.options.find((o) => key(o) === props.value) ?? props.options[0];
  const icon = selected ? iconUrl(selected.coin, ICON_HASHES) : null;
  return (
    <div>
      <label for={props.name}>{props.label}</label>
      <div class="coin">
        <img src={icon ?? ""} alt="" data-icon-for={props.name} hidden={!icon} width="20" height="20" />
        <select id={props.name} name={props.name} data-coin-select>
          {props.options.map((o) => (
            <option
              value={key(o)}
              selected={o === selected}
              data-icon={iconUrl(o.coin, ICON_HASHES) ?? ""}
              data-memo={o.is_memo === 1 ? "1" : undefined}
            >
              {o.coin === o.network ? o.coin : `${o.coin} (${o.network})`} · {o.name}
            </option>
          ))}
        </select>
      </div>
    </div>
  );
}

/** The coins a widget offers on each side, in catalog order. */
export function sides(widget: Widget, catalog: CurrencyRow[]) {
  const offered = catalog.filter((c) => c.is_active === 1 && offersCoin(widget, c.coin));
  const locked = widget.locked_recipient;
  return {
    from: offered.filter((c) => c.is_deposit_enabled === 1),
    to: offered.filter((c) => c.is_withdraw_enabled === 1 && (!locked || c.network === locked.network)),
  };
}

export function SwapForm(props: SwapFormProps) {
  const w = props.widget;
  const { from, to } = sides(w, props.catalog);
  const pair = w.default_pair;
  const v = props.values;
  const fromValue = v.from ?? (pair ? `${pair.coin_from}:${pair.network_from}` : from[0] ? key(from[0]) : "");
  const toDefault = pair ? `${pair.coin_to}:${pair.network_to}` : undefined;
  const toValue =
    v.to ?? toDefault ?? key(to.find((c) => key(c) !== fromValue) ?? to[0] ?? { coin: "", network: "" });
  const fixed = v.rate_type === "fixed";
  const locked = w.locked_recipient;
  return (
    <form
      method="post"
      action={props.action}
      class="card"
      data-swap-form
      data-quote-url={props.quoteUrl}
      data-check-url={props.checkUrl}
      novalidate
    >
      {w.mode === "test" ? (
        <p class="banner" data-testid="test-banner">
          Test mode: orders here are test orders and nothing real moves.
        </p>
      ) : null}
      <h1>Exchange</h1>
      {props.offeredBy ? (
        <p class="muted small" data-testid="offered-by">
          A swap offered by <strong>{props.offeredBy}</strong>.
        </p>
      ) : null}
      {props.error ? (
        <p class="error" role="alert" data-testid="form-error">
          {props.error}
        </p>
      ) : null}
      <div class="side">
        <CoinSelect name="from" label="You send" options={from} value={fromValue} />
        <div>
          <label for="amount_from">Amount</label>
          <input
            id="amount_from"
            name="amount_from"
            inputmode="decimal"
            autocomplete="off"
            value={v.amount_from ?? (v.amount_to ? "" : (w.default_amount ?? ""))}
            placeholder="0.1"
            data-amount="from"
          />
        </div>
      </div>
      <div class="side">
        <CoinSelect name="to" label="You get" options={to} value={toValue} />
        <div>
          <label for="amount_to">Amount</label>
          <input
            id="amount_to"
            name="amount_to"
            inputmode="decimal"
            autocomplete="off"
            value={v.amount_to ?? ""}
            placeholder="or the amount to get"
            data-amount="to"
          />
        </div>
      </div>
      {/* The side the visitor typed on; the script keeps it, the server falls back to the filled one. */}
      <input type="hidden" name="side" value={v.side === "to" ? "to" : "from"} data-amount-side />
      <p>
        Estimate:{" "}
        <output
          id="quote-out"
          class="quote"
          data-quote-out
          aria-live="polite"
          for="amount_from amount_to from to"
        >
          —
        </output>
      </p>
      <p class="hint" data-quote-note aria-live="polite"></p>
      <fieldset>
        <legend>Rate</legend>
        <label>
          <input type="radio" name="rate_type" value="float" checked={!fixed} /> Floating
        </label>
        <label>
          <input type="radio" name="rate_type" value="fixed" checked={fixed} /> Fixed
        </label>
      </fieldset>
      <input type="hidden" name="quote_id" value="" data-quote-id />
      <input type="hidden" name="nonce" value={props.nonce} />
      {locked ? (
        <>
          <label for="recipient_address">Receiving address ({locked.network})</label>
          <input
            id="recipient_address"
            value={locked.address}
            readonly
            aria-readonly="true"
            data-testid="locked-recipient"
            class="mono"
          />
          <p class="hint">Set by this site: your coins go to this address.</p>
        </>
      ) : (
        <>
          <label for="recipient_address">Receiving address</label>
          <input
            id="recipient_address"
            name="recipient_address"
            autocomplete="off"
            spellcheck={false}
            required
            value={v.recipient_address ?? ""}
            data-check="recipient"
            aria-describedby="recipient-hint"
          />
          <p class="hint" id="recipient-hint" data-check-out="recipient" aria-live="polite"></p>
          <div data-memo-field hidden>
            <label for="recipient_address_tag">Memo / tag (if your wallet needs one)</label>
            <input
              id="recipient_address_tag"
              name="recipient_address_tag"
              autocomplete="off"
              value={v.recipient_address_tag ?? ""}
            />
          </div>
        </>
      )}
      <label for="refund_address">Refund address (optional)</label>
      <input
        id="refund_address"
        name="refund_address"
        autocomplete="off"
        spellcheck={false}
        value={v.refund_address ?? ""}
        data-check="refund"
        aria-describedby="refund-hint"
      />
      <p class="hint" id="refund-hint" data-check-out="refund" aria-live="polite"></p>
      {props.turnstileSiteKey ? (
        <div class="cf-turnstile" data-sitekey={props.turnstileSiteKey} data-action={TURNSTILE_ACTION}></div>
      ) : null}
      <button type="submit">Exchange</button>
    </form>
  );
}
