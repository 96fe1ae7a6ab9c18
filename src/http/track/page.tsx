// The tracking page's body: the order's timeline in plain words, the deposit (address, QR code,
// memo warning, countdown), amounts, transaction links, and what to do next for a held order.
// Readable without JavaScript (the page then reloads itself, see NO_SCRIPT_REFRESH_SECONDS); the
// script copies, counts down by the second, shows times in the viewer's zone and reloads on a change.
import { raw } from "hono/html";
import { renderSVG } from "uqr";
import { reasonText } from "../../domain/order-status";
import { durationWords, relativeTime } from "../../lib/relative-time";
import type { Tracking } from "../../services/order-status";

export type TrackView = Omit<Tracking, "partnerId">;

const fmt = (n: number | null) => (n === null ? "—" : String(n));

/** Without the script, an unfinished order's page reloads itself this often (a meta refresh). */
export const NO_SCRIPT_REFRESH_SECONDS = 30;

/** A time to the minute in UTC; the script shows it in the viewer's zone. */
const At = (props: { iso: string }) => (
  <time datetime={props.iso} data-local="minutes">
    {`${props.iso.replace("T", " ").slice(0, 16)} UTC`}
  </time>
);

function TxLink(props: {
  label: string;
  txid: string | null;
  network: string;
  explorers: Record<string, string>;
}) {
  if (!props.txid) return null;
  const template = props.explorers[props.network];
  return (
    <>
      <dt>{props.label}</dt>
      <dd class="mono small">
        {template ? (
          <a
            href={template.replace("{txid}", encodeURIComponent(props.txid))}
            rel="noopener noreferrer"
            target="_blank"
          >
            {props.txid}
          </a>
        ) : (
          props.txid
        )}
      </dd>
    </>
  );
}

/** The deposit address as the QR code carries it: exactly the address (docs/widget.md). */
export const qrSvg = (address: string) => renderSVG(address, { border: 2 });

export function TrackBody(props: TrackView & { now: number }) {
  const s = props.status;
  const waiting = s.status === "waiting_deposit";
  const current =
    props.steps.find((p) => p.state === "current" || p.state === "failed") ?? props.steps.at(-1);
  return (
    <>
      {s.livemode ? null : (
        <p class="banner" data-testid="test-banner">
          Test order: nothing real moves.
        </p>
      )}
      <h1>
        Swap {s.coin_from} → {s.coin_to}
        <span class="muted small" data-testid="status" data-status={s.status}>
          {" "}
          · {current?.label}
        </span>
      </h1>
      <section class="card" aria-label="Progress">
        <ol class="timeline">
          {props.steps.map((p) => (
            <li data-state={p.state} aria-current={p.state === "current" ? "step" : undefined}>
              {p.label}
              {p.at ? (
                <span class="muted small step-at">
                  {" · "}
                  <At iso={p.at} />
                </span>
              ) : null}
            </li>
          ))}
        </ol>
        {reasonText(s.status_reason) ? <p class="muted small">{reasonText(s.status_reason)}</p> : null}
      </section>
      {s.hold ? (
        <section class="card" aria-labelledby="hold-h" data-testid="hold">
          <h2 id="hold-h">Your swap is on hold</h2>
          <p>
            The address your deposit came from is on a screening list ({s.hold.category.replace("_", " ")}),
            so the swap has stopped where it was. The hold ends by <At iso={s.hold.deadline_at} />:{" "}
            {s.hold.at_deadline === "refund"
              ? "your deposit will then be sent back."
              : "a person will then decide what happens to your deposit, and record it."}
            {s.hold.extended ? " Its deadline was moved once, for a recorded reason." : ""}
          </p>
          <p class="small">
            <a href="/compliance">How screening and holds work</a>
          </p>
        </section>
      ) : null}
      {waiting ? (
        <section class="card deposit" aria-labelledby="deposit-h">
          <h2 id="deposit-h">
            Send {s.amount_from_expected} {s.coin_from} on the {s.network_from} network
          </h2>
          <div
            class="qr"
            role="img"
            aria-label={`QR code of the deposit address ${s.deposit_address}`}
            data-testid="qr"
          >
            {raw(qrSvg(s.deposit_address))}
          </div>
          <div class="copy-row">
            <code id="deposit-address" data-testid="deposit-address">
              {s.deposit_address}
            </code>
            <button type="button" class="secondary" data-copy="deposit-address" hidden>
              Copy
            </button>
          </div>
          {s.deposit_address_tag ? (
            <>
              <p class="warning" role="alert">
                The memo / tag below is required. Without it your deposit cannot be credited.
              </p>
              <div class="copy-row">
                <code id="deposit-tag" data-testid="deposit-tag">
                  {s.deposit_address_tag}
                </code>
                <button type="button" class="secondary" data-copy="deposit-tag" hidden>
                  Copy
                </button>
              </div>
            </>
          ) : null}
          <p class="muted small">
            Send before <At iso={s.expires_at} /> (
            <span data-countdown={s.expires_at}>
              {Date.parse(s.expires_at) > props.now
                ? relativeTime(Date.parse(s.expires_at), props.now)
                : "expired"}
            </span>
            ).
          </p>
        </section>
      ) : null}
      <section class="card" aria-label="Details">
        <dl class="facts">
          <dt>You send</dt>
          <dd>
            {s.amount_from_expected} {s.coin_from}
            {s.amount_from_received !== null ? ` (received ${s.amount_from_received})` : ""}
          </dd>
          <dt>You get</dt>
          <dd data-testid="amount-to">
            {s.amount_to_actual !== null
              ? `${s.amount_to_actual} ${s.coin_to}`
              : `≈ ${fmt(s.amount_to_expected)} ${s.coin_to}`}
          </dd>
          {s.amount_to_actual === null && s.amount_to_min !== null && s.rate_type === "float" ? (
            <>
              <dt>At least</dt>
              <dd data-testid="amount-to-min">
                {s.amount_to_min} {s.coin_to}: below that nothing is exchanged, and you choose a refund or the
                rate then
              </dd>
            </>
          ) : null}
          <dt>To</dt>
          <dd class="mono">{s.recipient_address}</dd>
          {s.eta_seconds && !props.final ? (
            <>
              <dt>Takes</dt>
              <dd data-testid="eta">
                about {durationWords(s.eta_seconds.p50)} after your deposit is seen (9 in 10 within{" "}
                {durationWords(s.eta_seconds.p90)})
              </dd>
            </>
          ) : null}
          {s.refund_address ? (
            <>
              <dt>Refunds to</dt>
              <dd class="mono">{s.refund_address}</dd>
            </>
          ) : null}
          <TxLink
            label="Deposit"
            txid={s.deposit_txid}
            network={s.network_from}
            explorers={props.explorers}
          />
          <TxLink label="Payout" txid={s.payout_txid} network={s.network_to} explorers={props.explorers} />
          <TxLink label="Refund" txid={s.refund_txid} network={s.network_from} explorers={props.explorers} />
          <dt>Order</dt>
          <dd class="mono small">{s.id}</dd>
        </dl>
      </section>
      {s.wrong_network_deposits.length > 0 ? (
        <section class="card" aria-labelledby="wrong-h" data-testid="wrong-network">
          <h2 id="wrong-h">Sent on another network</h2>
          {s.wrong_network_deposits.map((w) => (
            <p>
              We received {w.amount} {w.coin} on {w.network}, but this swap expects {s.coin_from} on{" "}
              {s.network_from}. That payment is not part of the swap. It is not lost: it can be sent back to
              you on {w.network}.
            </p>
          ))}
          <p>
            {props.support ? (
              <>
                Write to{" "}
                <a href={`mailto:${props.support}?subject=${encodeURIComponent(`Order ${s.id}`)}`}>
                  {props.support}
                </a>{" "}
                with this page's address and the address to send it back to.
              </>
            ) : (
              "Contact the service you swap with, and give it this page's address and the address to send it back to."
            )}
          </p>
        </section>
      ) : null}
      {s.status === "failed" ? (
        <section class="card" aria-labelledby="next-h">
          <h2 id="next-h">What happens next</h2>
          <p>
            Your funds are safe and on hold while support decides whether to finish the swap or refund you.
            {props.support ? (
              <>
                {" "}
                Write to{" "}
                <a href={`mailto:${props.support}?subject=${encodeURIComponent(`Order ${s.id}`)}`}>
                  {props.support}
                </a>{" "}
                with this page's address.
              </>
            ) : (
              " Contact the service where you started the swap, with this page's address."
            )}
          </p>
        </section>
      ) : null}
      {props.final ? null : <p class="muted small">This page updates by itself.</p>}
    </>
  );
}
