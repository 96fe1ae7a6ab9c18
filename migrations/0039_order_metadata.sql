-- The partner's metadata on the order index (issue 28 §8), so the cabinet's CSV export carries it
-- with the other columns: the order's JSON object of string pairs as given, NULL when it has none.
-- Written by the order's projection; orders projected before this column show it empty until
-- their next change.
ALTER TABLE orders ADD COLUMN metadata TEXT;
