// Admin routes and partner keys: partners, the simulated chains, auth, the operator audit and the
// request log, one module each in ./admin-and-keys/, run as one test file. Each test creates the
// partners it reads; admin-partners compares the list before and after, not with a fixed count.
// (rate-limit.test.ts stays apart: it failed in this file, likely as per-IP limits count every
// request of the file.)
// As separate files each paid a workerd start and a load of the Worker (≈ 5 s of CPU) for a second
// or less of tests (docs/performance.md, "Test-suite time"). Each module keeps its describes and
// test names; run one with -t.
import "./admin-and-keys/admin-partners";
import "./admin-and-keys/admin-sim";
import "./admin-and-keys/auth";
import "./admin-and-keys/operator-audit";
import "./admin-and-keys/request-log";
