// Partner routes: deposit address pools, app keys, cancelling an order, the order list, order status and tracking, wallet assets, key scopes,
// webhooks (partner and operator side), live event streams and test mode, one module each in ./partner-routes/, run as
// one test file. Each module wraps its tests and hooks in its own describe (named for the module),
// so a hook (MSW handlers, fake timers, setPrices) reaches only that module's tests.
// As separate files each paid a workerd start and a load of the Worker (≈ 5 s of CPU) for one to
// three seconds of tests (docs/performance.md, "Test-suite time"). Each module keeps its describes
// and test names; run one with -t.
import "./partner-routes/address-pool";
import "./partner-routes/app-keys";
import "./partner-routes/key-scopes";
import "./partner-routes/order-cancel";
import "./partner-routes/order-list";
import "./partner-routes/order-status";
import "./partner-routes/partner-webhooks";
import "./partner-routes/streams";
import "./partner-routes/test-mode";
import "./partner-routes/wallet-assets";
import "./partner-routes/webhooks";
