// /compliance: the screening and hold policy a wallet links to (docs/lifecycle.md, "Holds"). The
// deadlines and outcomes are read from the same HOLD_POLICY the orders follow, so the page cannot
// state other than what happens.
import { Hono } from "hono";
import type { HoldOutcome, HoldPolicy } from "../../domain/holds";
import { SCREENING_CATEGORIES, type ScreeningCategory } from "../../domain/screening";
import type { AppEnv } from "../app-env";
import { publicRateLimit } from "../middleware/auth";
import { Frame, swapCsp } from "../track/frame";

/** Each category's list, in plain words. */
const LISTS: Record<ScreeningCategory, string> = {
  sanctions:
    "Sanctions: the digital-currency addresses on the U.S. Treasury's OFAC SDN list, refreshed at least daily.",
  issuer_blocked:
    "Issuer blocklists: addresses Tether (USDT) or Circle (USDC) have blocked in their token contracts, asked of the contract itself.",
  operator: "Our own entries: addresses this service must not deal with.",
  risk: "A risk-screening provider's finding, where one is used.",
};

const OUTCOMES: Record<HoldOutcome, string> = {
  refund:
    "the deposit is sent back: to the refund address given with the order, or else to the address it came from (on chains where a payment has one sender; never to an address its token's issuer has blocked: then a person decides)",
  operator_review:
    "a person decides, and records the decision: blocking may be required by law, so the money does not move by itself",
};

const hoursWords = (h: number) =>
  h % 24 === 0 ? `${h / 24} day${h === 24 ? "" : "s"} (${h} hours)` : `${h} hours`;

export function ComplianceBody(props: { policy: HoldPolicy }) {
  return (
    <>
      <h1>Screening and holds</h1>
      <section class="card" aria-labelledby="what-h">
        <h2 id="what-h">What is screened</h2>
        <ul>
          <li>
            The payout and refund addresses, before an order is created: a listed one is refused, and nothing
            is created. A wallet can check addresses before it shows a quote.
          </li>
          <li>The addresses of a later payout, refund or payout-address change, before any money moves.</li>
          <li>
            Where a deposit comes from, when it is first seen on chain: its sender, or on Bitcoin, Bitcoin
            Cash, Litecoin and Dogecoin every address its inputs spend from.
          </li>
        </ul>
      </section>
      <section class="card" aria-labelledby="lists-h">
        <h2 id="lists-h">Against which lists</h2>
        <ul>
          {SCREENING_CATEGORIES.map((c) => (
            <li data-category={c}>{LISTS[c]}</li>
          ))}
        </ul>
      </section>
      <section class="card" aria-labelledby="holds-h">
        <h2 id="holds-h">How a hold ends</h2>
        <p>
          A deposit from a listed address puts its order on hold: the order stops where it is, and its page
          shows the hold, why, and its deadline. No hold lasts without an end:
        </p>
        <table class="policy" data-testid="hold-policy">
          <thead>
            <tr>
              <th scope="col">List</th>
              <th scope="col">Deadline</th>
              <th scope="col">At the deadline</th>
            </tr>
          </thead>
          <tbody>
            {SCREENING_CATEGORIES.map((c) => (
              <tr data-category={c}>
                <td>{c.replace("_", " ")}</td>
                <td>{hoursWords(props.policy[c].hours)}</td>
                <td>{OUTCOMES[props.policy[c].at_deadline]}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p>
          Before the deadline we may release the order (it then goes on as usual) or send the deposit back. We
          may move a deadline once, with a recorded reason; the new deadline is shown on the order at once.
        </p>
      </section>
    </>
  );
}

export function createCompliancePage() {
  const app = new Hono<AppEnv>();
  app.get("/", publicRateLimit, (c) => {
    c.header("Content-Security-Policy", swapCsp([]));
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Cache-Control", "public, max-age=300");
    return c.html(
      <Frame title="Screening and holds">
        <ComplianceBody policy={c.get("config").HOLD_POLICY} />
      </Frame>,
    );
  });
  return app;
}
