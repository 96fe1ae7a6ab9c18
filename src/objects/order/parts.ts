import { VENDOR_SOURCES_AT_MOST } from "../../adapters/screening/risk-vendor";
import { holdDue, type OrderHold } from "../../domain/holds";
import { isLive, type OrderRecord } from "../../domain/order";
import { gravestListed } from "../../domain/screening";
import { screenAddresses } from "../../storage/screening";
import { type OrderContext, orderContext } from "./context";
import { OrderDecisions, operatorHeld } from "./decisions";
import { DepositTracker } from "./deposit-tracker";
import { HOLD_REVIEW_ALERT } from "./journal";
import { MoneySteps } from "./money-steps";
import { DUE } from "./schedule";
import { PartnerView } from "./view";

/**
 * The order object's composition root: its parts (the deposit watch, the money steps, the
 * decisions on held funds, the partner's view) built over one context, each given only the members
 * its host interface names, and the step the alarm drives through them.
 */
export class OrderParts {
  readonly c: OrderContext;
  readonly view: PartnerView;
  readonly deposits: DepositTracker;
  readonly money: MoneySteps;
  readonly decisions: OrderDecisions;

  constructor(storage: DurableObjectStorage, env: Env, announce?: () => void) {
    const c = orderContext(storage, env, announce);
    this.c = c;
    const { config, kv, schedule, ledger, extraDeposits, alerts } = c;
    // The journal's three writes, which every part that moves the order makes.
    const transitions = { apply: c.apply, note: c.note, markProjection: c.markProjection };
    this.view = new PartnerView({
      env,
      config,
      kv,
      extraDeposits,
      record: c.record,
      now: c.now,
      watchEnded: () => this.deposits.watchEnded(),
      writes: c.writes,
    });
    const inputsIfHeld = this.view.inputsIfHeld.bind(this.view);
    this.deposits = new DepositTracker({
      ...transitions,
      env,
      config,
      storage,
      schedule,
      extraDeposits,
      reader: c.reader,
      siblingReader: c.siblingReader,
      saveRecord: c.saveRecord,
      log: c.log,
      inputsIfHeld,
      step: (now) => this.step(now),
      screenSources: async (r, addresses, now) => {
        const mode = isLive(r) ? "live" : "test";
        const items = addresses.map((address) => ({ network: r.networkFrom, address }));
        return gravestListed(await screenAddresses(env, mode, items, now, VENDOR_SOURCES_AT_MOST));
      },
    });
    this.money = new MoneySteps({
      ...transitions,
      env,
      config,
      kv,
      ledger,
      extraDeposits,
      alerts,
      now: c.now,
      adapters: c.adapters,
      inputsIfHeld,
    });
    this.decisions = new OrderDecisions({
      ...transitions,
      config,
      kv,
      ledger,
      extraDeposits,
      now: c.now,
      record: c.record,
      arm: c.arm,
      changeHold: c.changeHold,
      actionInputs: (r, now) => this.view.actionInputs(r, now),
      awaitingExtras: (r) => this.view.awaitingExtras(r),
      view: (r, now) => this.view.view(r, now),
      unconfirmedExtra: (r, d) => this.deposits.unconfirmedExtra(r, d),
    });
  }

  /**
   * What is due now: the deposit watch, else the send the status drives; then the watches for extra
   * deposits and for deposits on sibling networks.
   */
  async step(now: number): Promise<void> {
    const r = this.c.record();
    if (!r) return;
    if (r.hold) this.#holdDeadline(r, r.hold, now);
    if (!(await this.deposits.track(r, now))) {
      switch (r.status) {
        case "exchanging":
          // The operator's hold stops the exchange: it settles the order by hand or releases it.
          if (!operatorHeld(this.c.kv)) await this.money.exchange(r, now);
          break;
        case "sending":
          await this.money.send(r, "payout", now);
          break;
        case "refunding":
          await this.money.send(r, "refund", now);
          break;
        default:
          break;
      }
      const after = this.c.record();
      if (after) await this.deposits.watchForExtras(after, now);
    }
    const last = this.c.record();
    if (last) await this.deposits.watchSiblings(last, now);
  }

  /**
   * A hold's deadline, once (its schedule row): a refund is the tracker's to make, on a chain read
   * now (it refunds a confirmed deposit only); an operator's review is alerted on, and the order
   * waits for the operator's decision, with no money moving by itself.
   */
  #holdDeadline(r: OrderRecord, hold: OrderHold, now: number): void {
    const { schedule, alerts } = this.c;
    if (!holdDue(hold, now) || schedule.get(DUE.holdDeadline) === null) return;
    schedule.clear(DUE.holdDeadline);
    if (hold.at_deadline === "refund") {
      this.deposits.pollNow();
      return;
    }
    alerts.raise(
      r.id,
      HOLD_REVIEW_ALERT,
      `hold deadline reached (${hold.category}): the operator decides: release it, or end it in a refund`,
      { category: hold.category, deadline_at: hold.deadline_at },
      now,
    );
    this.c.note(r, now, "hold deadline: operator review", { category: hold.category });
  }
}
