// swap-partner-api-tail (tail.wrangler.toml): the Tail Worker of the production Worker. Workers
// Logs sample the producer's invocations before they run; this Worker sees every one after it
// ran and logs the failures in full, at its own sampling rate of 1 (docs/operators.md).
import { keptInFull } from "./domain/kept-invocations";

export default {
  tail(events) {
    for (const item of events) if (keptInFull(item)) console.log(JSON.stringify(item));
  },
} satisfies ExportedHandler;
