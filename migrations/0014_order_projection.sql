-- The order index is projected from each OrderObject after the fact (src/objects/order-projection.ts):
-- `version` is the object's event-log position the row reflects, so a projection that arrives twice
-- or late never moves a row backwards. Rows written before this column read 0.
ALTER TABLE orders ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
