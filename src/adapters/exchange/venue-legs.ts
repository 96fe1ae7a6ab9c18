import { afterLookup, afterPlace, type LegState, type LegStep, legAction } from "../../domain/venue-policy";
import type { SpotVenue, VenueOrder, VenueOutcome } from "./types";

/**
 * One step of one venue leg, as the order object's exchange step runs it: place (after storing
 * `sending`, so an eviction mid-request is read back as "may have reached the venue") or look up,
 * then store the state the policy answers. `persist` must be durable before it resolves (the
 * object's transactional storage). Returns null when the leg needs nothing now.
 */
export async function stepLeg(
  venue: SpotVenue,
  order: VenueOrder,
  clientOrderId: string,
  state: LegState,
  now: number,
  persist: (state: LegState) => Promise<void> | void,
): Promise<(LegStep & { outcome: VenueOutcome }) | null> {
  const action = legAction(state, now);
  if (action.do === "none") return null;
  let outcome: VenueOutcome;
  let step: LegStep;
  if (action.do === "place") {
    await persist({ phase: "sending" });
    outcome = await venue.place(order, clientOrderId);
    step = afterPlace(outcome, now);
  } else {
    outcome = await venue.lookup(order.symbol, clientOrderId);
    step = afterLookup(state, outcome, now);
  }
  await persist(step.state);
  return { ...step, outcome };
}
