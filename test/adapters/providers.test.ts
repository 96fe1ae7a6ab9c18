// Payout and chain-state adapters, their shared timeout and the mock network helper (MSW): each
// test builds its own network and adapter. One module each in ./providers/, run as one test file.
// (prices.test.ts stays apart: its timeout test failed when it shared a file with these.)
// As separate files each paid a workerd start and a load of the Worker (≈ 5 s of CPU) for a second
// or less of tests (docs/performance.md, "Test-suite time"). Each module keeps its describes and
// test names; run one with -t.
import "./providers/chain-account-state";
import "./providers/chain-shared-reads";
import "./providers/exchange-binance";
import "./providers/exchange-venue";
import "./providers/http-timeout";
import "./providers/payout-http";
import "./providers/prices-msw-helper";
import "./providers/registry";
