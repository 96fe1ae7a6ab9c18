// The CLI's command table: command name ("group sub") → CommandSpec (see core.d.mts).
// To add commands (e.g. `sim deposit`, `prices set`), write a module exporting such a map and
// spread it in here; the dispatcher in core.mjs picks them up, help included.
import { cabinetCommands } from "./cabinet.mjs";
import { currencyCommands } from "./currencies.mjs";
import { liquidityCommands } from "./liquidity.mjs";
import { operationCommands } from "./operations.mjs";
import { orderCommands } from "./orders.mjs";
import { partnerCommands } from "./partners.mjs";
import { poolCommands } from "./pools.mjs";
import { regionCommands } from "./regions.mjs";
import { simCommands } from "./sim.mjs";
import { statementCommands } from "./statements.mjs";
import { widgetCommands } from "./widgets.mjs";

/** @type {Record<string, import("./core.d.mts").CommandSpec>} */
export const commands = {
  ...partnerCommands,
  ...currencyCommands,
  ...liquidityCommands,
  ...regionCommands,
  ...simCommands,
  ...orderCommands,
  ...cabinetCommands,
  ...statementCommands,
  ...widgetCommands,
  ...poolCommands,
  ...operationCommands,
};
