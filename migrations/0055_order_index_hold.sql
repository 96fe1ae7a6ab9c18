-- A screened deposit's hold on the order index (docs/lifecycle.md, "Holds"), so the operator's review
-- queue, GET /partner/orders rows and the cabinet's list show the hold, its deadline and what happens
-- then without a read per order: the order's `hold` object as JSON text, NULL while none stands.
-- Written by the order's projection (every hold put, moved or ended is projected); NULL on rows
-- projected before, until their order next changes.
ALTER TABLE orders ADD COLUMN hold TEXT;
