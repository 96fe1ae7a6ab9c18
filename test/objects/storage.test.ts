// The order object's storage migrations, the send-once ledger and SimChain, one module each in
// ./storage/, run as one test file; each test uses objects of its own names.
// (order-schedule.test.ts stays apart: its alarm timing failed here, and alone, under load.)
// As separate files each paid a workerd start and a load of the Worker (≈ 5 s of CPU) for a second
// or less of tests (docs/performance.md, "Test-suite time"). Each module keeps its describes and
// test names; run one with -t.
import "./storage/order-migrations";
import "./storage/send-once";
import "./storage/sim-chain";
