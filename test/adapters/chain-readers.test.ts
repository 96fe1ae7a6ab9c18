// The chain providers' readers against recorded answers (MSW, test/support/msw.ts), one module per
// provider in ./chain-readers/, run as one test file: each test builds its own mock network and
// reader, so they share nothing, and as separate files each paid a workerd start and a load of the
// Worker for well under a second of tests (docs/performance.md, "Test-suite time").
// Run one provider's tests with `-t`, e.g. `npx vitest run --project workers
// test/adapters/chain-readers.test.ts -t "evm reader"`.
import "./chain-readers/blockbook";
import "./chain-readers/esplora";
import "./chain-readers/evm";
import "./chain-readers/horizon";
import "./chain-readers/http-util";
import "./chain-readers/rippled";
import "./chain-readers/solana";
import "./chain-readers/toncenter";
import "./chain-readers/trongrid";
