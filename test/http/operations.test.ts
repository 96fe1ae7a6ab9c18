// Operations: operator identity, the catalog, order review, liquidity (gateway balances, the wait
// at exchange time), recipient activation, month-end statements and the service status, one module
// each in ./operations/, run as one test file. Each module wraps its tests and hooks in its own
// describe (named for the module), so a hook (MSW handlers, fake timers, spies) reaches only that
// module's tests.
// As separate files each paid a workerd start and a load of the Worker (≈ 5 s of CPU) for one to
// three seconds of tests (docs/performance.md, "Test-suite time"). Each module keeps its describes
// and test names; run one with -t.
import "./operations/admin-access";
import "./operations/admin-currencies";
import "./operations/admin-order-review";
import "./operations/recipient-activation";
import "./operations/service-status";
import "./operations/statements";
