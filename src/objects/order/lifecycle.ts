import { type OrderContext, orderContext } from "./context";
import { OrderDecisions } from "./decisions";
import { DepositTracker } from "./deposit-tracker";
import { MoneySteps } from "./money-steps";
import { PartnerView } from "./view";

/**
 * The order's lifecycle: its parts (the deposit watch, the money steps, the decisions
 * on held funds, the partner's view) over one shared context, and the step that drives them.
 */
export class OrderLifecycle {
  readonly c: OrderContext;
  readonly view: PartnerView;
  readonly deposits: DepositTracker;
  readonly money: MoneySteps;
  readonly decisions: OrderDecisions;

  constructor(storage: DurableObjectStorage, env: Env) {
    const c = orderContext(storage, env);
    this.c = c;
    this.view = new PartnerView(c, {
      refundAmount: (r, amount) => this.money.refundAmount(r, amount),
      watchEnded: () => this.deposits.watchEnded(),
    });
    const inputsIfHeld = this.view.inputsIfHeld.bind(this.view);
    this.deposits = new DepositTracker({ ...c, inputsIfHeld, step: (now) => this.step(now) });
    this.money = new MoneySteps({ ...c, inputsIfHeld });
    this.decisions = new OrderDecisions({
      ...c,
      actionInputs: (r, now) => this.view.actionInputs(r, now),
      awaitingExtras: (r) => this.view.awaitingExtras(r),
      view: (r, now) => this.view.view(r, now),
      unconfirmedExtra: (r, d) => this.deposits.unconfirmedExtra(r, d),
    });
  }

  /** What is due now: the deposit watch, else the send the status drives; then the watch for extra deposits. */
  async step(now: number): Promise<void> {
    const r = this.c.record();
    if (!r) return;
    if (await this.deposits.track(r, now)) return;
    switch (r.status) {
      case "exchanging":
        await this.money.exchange(r, now);
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
}
