// Operations: operator identity (Access and the shared token), the review queue, recipient
// activation, month-end statements and the service status, one module each in ./operations/, run
// as one test file. Each module wraps its tests and hooks in its own describe (named for the
// module), so a hook (MSW handlers, fake timers, spies) reaches only that module's tests; the
// review queue is read filtered to its own partner.
// (Apart: liquidity-gateway and liquidity-wait failed here, as a coin's liquidity ledger and
// reservations are shared by every partner; admin-currencies changes BTC's decimals only while no
// BTC order exists, which holds only if it runs before every module that creates one.)
// As separate files each paid a workerd start and a load of the Worker (≈ 5 s of CPU) for one to
// three seconds of tests (docs/performance.md, "Test-suite time"). Each module keeps its describes
// and test names; run one with -t.
import "./operations/admin-access";
import "./operations/admin-order-review";
import "./operations/recipient-activation";
import "./operations/screening";
import "./operations/service-levels";
import "./operations/service-status";
import "./operations/statements";
