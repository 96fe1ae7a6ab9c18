// Orders run end to end for one concern each: their ETAs and step times, the order actions' decisions, ORDER_METER's counts
// (it turns the objects' shared config flag on and puts it back after each test), test orders
// on a deployment with real adapters, and retention; one module each in ./order-runs/, run as one test file.
// As separate files each paid a workerd start and a load of the Worker (≈ 5 s of CPU) for a few
// seconds or less of tests (docs/performance.md, "Test-suite time"). Each module keeps its describes
// and test names (a module with hooks of its own wraps them in one describe); run one with -t.
import "./order-runs/eta";
import "./order-runs/order-actions";
import "./order-runs/order-meter";
import "./order-runs/retention";
import "./order-runs/test-mode-real-adapters";
