// The operator CLI through its core against the Worker in workerd: partners, keys, usage and
// transport errors (./cli/partners-and-keys), and the other command groups (./cli/commands), run
// as one test file.
// As separate files each paid a workerd start and a load of the Worker (≈ 5 s of CPU) for a few
// seconds or less of tests (docs/performance.md, "Test-suite time"). Each module keeps its describes
// and test names (a module with hooks of its own wraps them in one describe); run one with -t.
import "./cli/commands";
import "./cli/partners-and-keys";
