// The order object's parts, each against a real order object: creation, the outbox, the view, the
// journal, the projection to D1 and the context; one module each in ./order-parts/, run as one test
// file. Each module's beforeAll sets the prices and creates a partner of its own name.
// As separate files each paid a workerd start and a load of the Worker (≈ 5 s of CPU) for a second
// or less of tests (docs/performance.md, "Test-suite time"). Each module keeps its describes and
// test names; run one with -t.
import "./order-parts/order-context";
import "./order-parts/order-creation";
import "./order-parts/order-journal";
import "./order-parts/order-outbox";
import "./order-parts/order-projection";
import "./order-parts/order-view";
