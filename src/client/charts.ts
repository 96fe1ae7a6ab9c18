// The overview's chart of daily orders and earnings: uPlot, bundled into its own script that only
// pages with a chart load (no CDN; uPlot styles through the CSSOM, which the CSP allows). The
// server puts the series on the element.
import uPlot from "uplot";

interface ChartData {
  days: string[];
  orders: number[];
  earnings: number[];
}

/** Orders are whole: the orders axis steps by whole numbers only (uPlot's default steps include 0.5). */
const WHOLE_STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000,
];

function draw(el: HTMLElement): void {
  const data = JSON.parse(el.dataset.chart ?? "{}") as ChartData;
  const xs = data.days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
  const width = () => Math.max(280, el.clientWidth);
  const plot = new uPlot(
    {
      width: width(),
      height: 280,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
      scales: { x: { time: true }, usd: { auto: true } },
      series: [
        {},
        {
          label: "Orders",
          stroke: "#2456d6",
          fill: "rgba(36,86,214,0.35)",
          width: 1,
          paths: uPlot.paths.bars?.({ size: [0.6, 24] }),
          points: { show: false },
        },
        {
          label: "Earnings (USD)",
          stroke: "#0f7b3f",
          width: 2,
          scale: "usd",
          value: (_u, v) => (v == null ? "—" : `$${v.toFixed(2)}`),
        },
      ],
      axes: [
        {},
        {
          label: "orders",
          incrs: WHOLE_STEPS,
          // The drawn labels also on the element: the canvas has no text to read back.
          values: (_u, splits) => {
            const labels = splits.map((v) => String(v));
            el.dataset.orderTicks = labels.join(" ");
            return labels;
          },
        },
        { side: 1, scale: "usd", label: "USD", grid: { show: false } },
      ],
    },
    [xs, data.orders, data.earnings],
    el,
  );
  new ResizeObserver(() => plot.setSize({ width: width(), height: 280 })).observe(el);
}

for (const el of document.querySelectorAll<HTMLElement>("[data-chart]")) draw(el);
