// The cabinet's order routes: list, CSV export, detail, the state the detail polls, and the
// decisions on a failed order's money (the partner API's logic, taken as the signed-in member).
import type { Context, Hono } from "hono";
import { z } from "zod";
import { tryParseDecimal } from "../../domain/money";
import { newDestination } from "../../domain/order-actions";
import {
  cabinetAction,
  cabinetTestHelper,
  checkActionAddress,
  type OrderQuery,
  orderDetail,
  orderFilter,
  orderPage,
  orderState,
  ordersCsv,
} from "../../services/cabinet-orders";
import type { ActionBody } from "../../services/order-actions";
import { STEP_UP_FIELD } from "../../services/step-up";
import type { TestHelper } from "../../services/test-helpers";
import { loadCatalog } from "../../storage/catalog";
import { badRequest } from "../errors";
import { reads } from "../middleware/d1-session";
import { OrderPage, OrdersPage } from "./order-pages";
import { actorOf, type CabinetEnv, requireSession, type SignedInEnv, stepUpGate } from "./session";

const signedIn = (c: Context<CabinetEnv>) => c as unknown as Context<SignedInEnv>;
const partnerOf = (c: Context<CabinetEnv>) => signedIn(c).get("cabinet").user.partner_id;

/** Whose orders a page lists: the member's partner, in the header switch's Live / Test view. */
const filterOf = (c: Context<CabinetEnv>, q: Parameters<typeof orderFilter>[2]) => {
  const s = signedIn(c).get("cabinet");
  return orderFilter(s.user.partner_id, s.mode !== "test", q);
};

const QUERY_KEYS = [
  "status",
  "from",
  "to",
  "coin_from",
  "coin_to",
  "rate",
  "q",
  "cursor",
  "created_from",
  "created_to",
  "updated_from",
  "partner_order_id",
] as const;

function orderQuery(c: Context): OrderQuery {
  return Object.fromEntries(
    QUERY_KEYS.flatMap((k) => {
      const v = c.req.query(k);
      return v ? [[k, v.slice(0, 400)]] : [];
    }),
  );
}

const checkBody = z.object({
  kind: z.enum(["refund", "payout"]),
  address: z.string().min(1).max(128),
  tag: z.string().max(128).optional(),
});

async function form(c: Context): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  return Object.fromEntries(
    Object.entries(body).flatMap(([k, v]) => (typeof v === "string" && v.trim() ? [[k, v.trim()]] : [])),
  );
}

function actionBody(kind: string, f: Record<string, string>): ActionBody {
  switch (kind) {
    case "refund":
      return {
        kind,
        refund_address: f.refund_address,
        refund_address_tag: f.refund_address_tag,
        deposit: f.deposit,
      };
    case "continue":
      return { kind };
    case "payout":
      if (!f.recipient_address) throw badRequest("A payout needs the new recipient address.");
      return { kind, recipient_address: f.recipient_address, recipient_address_tag: f.recipient_address_tag };
    default:
      throw badRequest("Unknown action.");
  }
}

/** A test button's form as the helper it runs (the partner API's bodies, docs/test-mode.md). */
function testHelper(name: string, f: Record<string, string>): TestHelper {
  switch (name) {
    case "deposit": {
      if (f.amount !== undefined && tryParseDecimal(f.amount)?.gt(0) !== true)
        throw badRequest(`The deposit amount must be a positive number of coin units, not "${f.amount}".`);
      return { kind: "deposit", amount: f.amount };
    }
    case "fail": {
      const step = f.step;
      if (step !== "exchange" && step !== "payout" && step !== "refund")
        throw badRequest("Choose the step to fail: exchange, payout or refund.");
      return { kind: "fail", step };
    }
    case "drop-deposit":
      return { kind: "drop_deposit" };
    case "confirm":
    case "expire":
      return { kind: name };
    default:
      throw badRequest("Unknown test helper.");
  }
}

export function registerOrderRoutes(app: Hono<CabinetEnv>): void {
  app.get("/orders", requireSession("orders.read"), async (c) => {
    const query = orderQuery(c);
    const [page, catalog] = await Promise.all([
      orderPage(reads(c), filterOf(c, query), query.cursor),
      loadCatalog(reads(c)),
    ]);
    const coins = [...new Set(catalog.map((r) => r.coin))].sort();
    return c.html(
      <OrdersPage
        session={signedIn(c).get("cabinet")}
        query={query}
        rows={page.rows}
        next={page.next}
        coins={coins}
      />,
    );
  });

  app.get("/orders.csv", requireSession("orders.read"), (c) => {
    const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, "");
    return c.body(ordersCsv(reads(c), filterOf(c, orderQuery(c)), c.get("config").CABINET_ORIGIN), 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="orders-${stamp}.csv"`,
    });
  });

  app.get("/orders/:ref", requireSession("orders.read"), async (c) => {
    const detail = await orderDetail(c.env, partnerOf(c), c.req.param("ref"));
    return c.html(<OrderPage session={signedIn(c).get("cabinet")} detail={detail} />);
  });

  app.get("/orders/:ref/state", requireSession("orders.read"), async (c) =>
    c.json(await orderState(c.env, partnerOf(c), c.req.param("ref"))),
  );

  app.post("/orders/:ref/check-address", requireSession("orders.act"), async (c) => {
    const parsed = checkBody.safeParse(await c.req.json().catch(() => null));
    if (!parsed.success) throw badRequest("Invalid request body.");
    const b = parsed.data;
    return c.json(
      await checkActionAddress(c.env, partnerOf(c), c.req.param("ref"), b.kind, b.address, b.tag),
    );
  });

  // Nothing leaves a test order (its chain, venue and payouts are simulated): no step-up.
  app.post(
    "/orders/:ref/test/:helper{deposit|confirm|drop-deposit|expire|fail}",
    requireSession("orders.act"),
    async (c) => {
      const helper = testHelper(c.req.param("helper"), await form(c));
      const order = await cabinetTestHelper(c.env, actorOf(signedIn(c)), c.req.param("ref"), helper);
      return c.redirect(`/cabinet/orders/${order.id}`, 303);
    },
  );

  app.post("/orders/:ref/:action{refund|continue|payout}", requireSession("orders.act"), async (c) => {
    const s = signedIn(c);
    const f = await form(c);
    const body = actionBody(c.req.param("action"), f);
    // Funds to an address the order did not carry: only after a fresh passkey confirmation.
    const to = newDestination(body);
    const stepUp = to
      ? await stepUpGate(
          s,
          f[STEP_UP_FIELD],
        )({
          action: body.kind === "refund" ? "order.refund" : "order.payout",
          target: to,
        })
      : null;
    const order = await cabinetAction(c.env, actorOf(s), c.req.param("ref"), body, stepUp);
    return c.redirect(`/cabinet/orders/${order.id}`, 303);
  });
}
