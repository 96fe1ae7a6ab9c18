// Orders whose deposits are read through the real chain readers (recorded answers over MSW), and
// reads shared between orders of one chain; one module each in ./chain-reads/, run as one test file.
// As separate files each paid a workerd start and a load of the Worker (≈ 5 s of CPU) for a second
// or less of tests (docs/performance.md, "Test-suite time"). Each module keeps its describes and
// test names; run one with -t.
import "./chain-reads/evm-finality";
import "./chain-reads/real-readers";
import "./chain-reads/shared-chain-reads";
