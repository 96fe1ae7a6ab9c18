// The cabinet's Payouts page (docs/earnings.md, "Statements"): the statements of the mode in view
// with their lines, a CSV and a printable view of each, and — for admins — the payout settings:
// asset and minimum, and the address, whose change needs a step-up and waits a cooling period
// that every admin sees and can cancel.
import { type Context, Hono } from "hono";
import { z } from "zod";
import { can } from "../../domain/cabinet";
import { csvLine } from "../../domain/csv";
import { DomainError } from "../../domain/errors";
import type { Asset } from "../../services/payout-settings";
import {
  cancelPayoutAddress,
  getSettings,
  payoutAssets,
  requestPayoutAddress,
  setPayoutTerms,
} from "../../services/payout-settings";
import { closeTestMonth } from "../../services/statements";
import { STEP_UP_FIELD } from "../../services/step-up";
import type { SessionContext } from "../../storage/cabinet";
import {
  getStatement,
  listStatements,
  type ParsedStatement,
  type PayoutSettingsRow,
  parseStatement,
} from "../../storage/statements";
import { badRequest } from "../errors";
import { form } from "./forms";
import { Csrf, Notice, Page, StepUpField } from "./layout";
import { when } from "./pages";
import { actorOf, type CabinetEnv, requireSession, type SignedInEnv, stepUpGate } from "./session";

const PATH = "/cabinet/payouts";
const signedIn = (c: Context<CabinetEnv>) => c as unknown as Context<SignedInEnv>;

function StatementSummary(props: { s: ParsedStatement }) {
  const s = props.s;
  return (
    <tr data-testid="statement" data-status={s.status}>
      <td>{s.month}</td>
      <td class="num">{s.orders}</td>
      <td class="num">{s.total_usd}</td>
      <td>
        <span class={`badge ${s.status}`}>{s.status.replace("_", " ")}</span>
        {s.hold_reason ? <div class="muted small">{s.hold_reason}</div> : null}
      </td>
      <td>{s.amount && s.coin ? `${s.amount} ${s.coin} (${s.network})` : "—"}</td>
      <td class="mono small" data-testid="txid">
        {s.txid ?? "—"}
      </td>
      <td>
        <a href={`${PATH}/${s.id}`}>View / print</a> · <a href={`${PATH}/${s.id}/csv`}>CSV</a>
      </td>
    </tr>
  );
}

function AssetSelect(props: { assets: Asset[]; selected: string | null }) {
  return (
    <label>
      Asset
      <select name="asset" required>
        {props.assets.map((a) => {
          const ref = `${a.coin}/${a.network}`;
          return (
            <option value={ref} selected={ref === props.selected}>
              {a.coin} on {a.network}
            </option>
          );
        })}
      </select>
    </label>
  );
}

function SettingsCard(props: {
  session: SessionContext;
  settings: PayoutSettingsRow | null;
  assets: Asset[];
}) {
  const st = props.settings;
  const asset = st ? `${st.coin}/${st.network}` : null;
  return (
    <section class="card" data-testid="payout-settings">
      <h2>Payout settings</h2>
      <p>
        Paid in <strong>{st ? `${st.coin} on ${st.network}` : "(no asset chosen)"}</strong> to{" "}
        <strong class="mono" data-testid="payout-address">
          {st?.address ?? "(no address in effect)"}
        </strong>
        {st?.tag ? ` tag ${st.tag}` : ""}; minimum <strong>{st?.minimum_usd ?? "50"} USD</strong> (below it,
        the total carries over to the next month).
      </p>
      {st?.pending_address ? (
        <div class="notice pending" role="status" data-testid="pending-change">
          <p>
            Address change to <strong class="mono">{st.pending_address}</strong> ({st.pending_coin} on{" "}
            {st.pending_network}), requested by {st.pending_requested_by}, takes effect at{" "}
            <strong>{when(st.pending_effective_at)}</strong>. Until then payouts go to the current address.
          </p>
          <form class="inline" method="post" action={`${PATH}/address/cancel`}>
            <Csrf session={props.session} />
            <button class="secondary small" type="submit">
              Cancel this change
            </button>
          </form>
        </div>
      ) : null}
      <h3>Asset and minimum</h3>
      <form class="row" method="post" action={`${PATH}/terms`}>
        <Csrf session={props.session} />
        <AssetSelect assets={props.assets} selected={asset} />
        <label>
          Minimum (USD)
          <input name="minimum_usd" inputmode="decimal" value={st?.minimum_usd ?? "50"} required />
        </label>
        <button type="submit">Save asset and minimum</button>
      </form>
      <h3>Payout address</h3>
      <form class="row" method="post" action={`${PATH}/address`} id="payout-address-form">
        <Csrf session={props.session} />
        <AssetSelect assets={props.assets} selected={asset} />
        <label class="grow">
          New payout address
          <input name="address" required maxlength={128} autocomplete="off" spellcheck={false} />
        </label>
        <label>
          Tag / memo
          <input name="tag" maxlength={64} autocomplete="off" />
        </label>
        <button type="submit">Change address (confirm with your passkey)</button>
        <StepUpField />
      </form>
      <p class="muted small">
        An address change needs your passkey again, is recorded in the audit log, and takes effect after the
        cooling period; every admin of your team sees it here and can cancel it.
      </p>
    </section>
  );
}

export function PayoutsPage(props: {
  session: SessionContext;
  statements: ParsedStatement[];
  settings: PayoutSettingsRow | null;
  assets: Asset[];
  notice?: string | undefined;
}) {
  const admin = can(props.session.user.role, "settings.write");
  const test = props.session.mode === "test";
  return (
    <Page
      title="Payouts"
      session={props.session}
      current={PATH}
      wide
      replaceUrl={props.notice ? PATH : undefined}
    >
      <h1>Payouts</h1>
      <p class="lead">
        A statement per month (UTC) of your {test ? "test" : "live"} earnings, paid automatically within 24
        hours of the month close.
      </p>
      <Notice text={props.notice} />
      {admin ? (
        <SettingsCard session={props.session} settings={props.settings} assets={props.assets} />
      ) : null}
      {admin && test ? (
        <form class="row" method="post" action={`${PATH}/test-close`}>
          <Csrf session={props.session} />
          <button type="submit" data-testid="test-close">
            Close this month now (test mode)
          </button>
        </form>
      ) : null}
      <section class="card">
        <h2>Statements</h2>
        {props.statements.length === 0 ? (
          <p class="muted">No statements yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th>Month</th>
                <th class="num">Orders</th>
                <th class="num">Total USD</th>
                <th>Payout</th>
                <th>Amount</th>
                <th>Transaction</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              {props.statements.map((s) => (
                <StatementSummary s={s} />
              ))}
            </tbody>
          </table>
        )}
      </section>
    </Page>
  );
}

/** One statement, laid out to print (the browser's print to PDF makes the PDF). */
export function StatementPage(props: { session: SessionContext; s: ParsedStatement }) {
  const s = props.s;
  return (
    <Page title={`Statement ${s.month}`} session={props.session} current={PATH}>
      <article class="card statement" data-testid="statement-view">
        <h1>
          Statement {s.month} ({s.livemode === 1 ? "live" : "test"})
        </h1>
        <p class="muted">
          {props.session.partner.name} · {s.id} · issued {when(s.issued_at)}
        </p>
        <table>
          <thead>
            <tr>
              <th>Coin</th>
              <th class="num">Orders</th>
              <th class="num">Markup</th>
              <th class="num">USD</th>
              <th class="num">Without price</th>
            </tr>
          </thead>
          <tbody>
            {s.lines.map((l) => (
              <tr>
                <td>{l.coin}</td>
                <td class="num">{l.orders}</td>
                <td class="num">{l.markup}</td>
                <td class="num">{l.markup_usd}</td>
                <td class="num">{l.unpriced}</td>
              </tr>
            ))}
            {s.adjustments.map((a) => (
              <tr>
                <td colspan={3}>Adjustment: {a.reason}</td>
                <td class="num">{a.amount_usd}</td>
                <td></td>
              </tr>
            ))}
          </tbody>
        </table>
        <dl class="facts">
          <dt>Earnings</dt>
          <dd>{s.earnings_usd} USD</dd>
          <dt>Adjustments</dt>
          <dd>{s.adjustments_usd} USD</dd>
          <dt>Carried in</dt>
          <dd>{s.carry_in_usd} USD</dd>
          <dt>Total</dt>
          <dd data-testid="statement-total">{s.total_usd} USD</dd>
          <dt>Payout</dt>
          <dd data-testid="statement-status">
            {s.status.replace("_", " ")}
            {s.hold_reason ? ` (${s.hold_reason})` : ""}
          </dd>
          <dt>Converted</dt>
          <dd>{s.amount ? `${s.amount} ${s.coin} on ${s.network} at ${s.price_usd} USD` : "—"}</dd>
          <dt>To</dt>
          <dd class="mono">{s.address ?? "—"}</dd>
          <dt>Transaction</dt>
          <dd class="mono">{s.txid ?? "—"}</dd>
        </dl>
        <p class="no-print">
          <a href={`${PATH}/${s.id}/csv`}>Download CSV</a> · Print this page to save it as PDF.
        </p>
      </article>
    </Page>
  );
}

function statementCsv(s: ParsedStatement): string {
  const rows: (string | number | null)[][] = [
    ["statement", "month", "kind", "coin", "orders", "markup", "usd", "note"],
    ...s.lines.map((l) => [
      s.id,
      s.month,
      "earnings",
      l.coin,
      l.orders,
      l.markup,
      l.markup_usd,
      l.unpriced ? `${l.unpriced} without price` : null,
    ]),
    ...s.adjustments.map((a) => [s.id, s.month, "adjustment", null, null, null, a.amount_usd, a.reason]),
    [s.id, s.month, "carry_in", null, null, null, s.carry_in_usd, null],
    [
      s.id,
      s.month,
      "total",
      s.coin,
      s.orders,
      s.amount,
      s.total_usd,
      `${s.status}${s.txid ? ` ${s.txid}` : ""}`,
    ],
  ];
  return rows.map((r) => csvLine(r)).join("");
}

const Terms = z.object({ asset: z.string().max(32), minimum_usd: z.string().trim().max(16) });
const Address = z.object({
  asset: z.string().max(32),
  address: z.string().trim().min(1).max(128),
  tag: z.string().trim().max(64).optional(),
});

export function payoutPages(): Hono<CabinetEnv> {
  const app = new Hono<CabinetEnv>();

  async function render(c: Context<SignedInEnv>, notice?: string) {
    const s = c.get("cabinet");
    const [rows, settings, assets] = await Promise.all([
      listStatements(c.env.DB, { partnerId: s.user.partner_id, livemode: s.mode !== "test", limit: 60 }),
      getSettings(c.env.DB, s.user.partner_id),
      payoutAssets(c.env.DB, c.get("config")),
    ]);
    return c.html(
      <PayoutsPage
        session={s}
        statements={rows.map(parseStatement)}
        settings={settings}
        assets={assets}
        notice={notice}
      />,
    );
  }

  async function own(c: Context<SignedInEnv>): Promise<ParsedStatement> {
    const row = await getStatement(c.env.DB, c.req.param("id") ?? "");
    if (!row || row.partner_id !== c.get("cabinet").user.partner_id)
      throw new DomainError("statement_not_found", "No such statement.");
    return parseStatement(row);
  }

  app.get("/", requireSession("orders.read"), (c) => render(signedIn(c)));
  app.get("/:id", requireSession("orders.read"), async (c) =>
    c.html(<StatementPage session={signedIn(c).get("cabinet")} s={await own(signedIn(c))} />),
  );
  app.get("/:id/csv", requireSession("orders.read"), async (c) => {
    const s = await own(signedIn(c));
    return c.body(statementCsv(s), 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="statement-${s.month}-${s.livemode === 1 ? "live" : "test"}.csv"`,
    });
  });
  app.post("/terms", requireSession("settings.write"), async (c) => {
    const parsed = Terms.safeParse(await form(c));
    if (!parsed.success) throw badRequest("Invalid payout terms.");
    await setPayoutTerms(c.env.DB, c.get("config"), actorOf(signedIn(c)), {
      asset: parsed.data.asset,
      minimumUsd: parsed.data.minimum_usd,
    });
    return render(signedIn(c), "Saved.");
  });
  app.post("/address", requireSession("settings.write"), async (c) => {
    const fields = await form(c);
    const parsed = Address.safeParse(fields);
    if (!parsed.success) throw badRequest("Invalid payout address.");
    // A stolen session alone cannot redirect a payout: the passkey confirms, then the change cools.
    const s = signedIn(c);
    await stepUpGate(
      s,
      fields[STEP_UP_FIELD],
    )({
      action: "payout.address_change",
      target: parsed.data.address,
    });
    await requestPayoutAddress(
      c.env.DB,
      c.get("config"),
      actorOf(signedIn(c)),
      { asset: parsed.data.asset, address: parsed.data.address, tag: parsed.data.tag ?? null },
      Date.now(),
    );
    return render(
      signedIn(c),
      "Address change requested: it takes effect at the time shown under Payout settings.",
    );
  });
  app.post("/address/cancel", requireSession("settings.write"), async (c) => {
    await cancelPayoutAddress(c.env.DB, actorOf(signedIn(c)), Date.now());
    return render(signedIn(c), "Address change cancelled.");
  });
  app.post("/test-close", requireSession("settings.write"), async (c) => {
    const s = signedIn(c).get("cabinet");
    if (s.mode !== "test") throw new DomainError("test_mode_only", "Switch to Test to close a test month.");
    const statement = await closeTestMonth(
      c.env,
      c.get("config"),
      { id: s.user.partner_id, livemode: false },
      Date.now(),
    );
    return render(signedIn(c), `Test statement ${statement.month}: ${statement.status}.`);
  });
  return app;
}
