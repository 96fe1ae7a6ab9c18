// The TypeScript SDK against the Worker: its client and errors, and that it has a method for every
// partner operation; one module each in ./sdk/, run as one test file.
// As separate files each paid a workerd start and a load of the Worker (≈ 5 s of CPU) for a second
// or less of tests (docs/performance.md, "Test-suite time"). Each module keeps its describes and
// test names; run one with -t.
import "./sdk/sdk";
import "./sdk/sdk-coverage";
import "./sdk/sdk-events";
