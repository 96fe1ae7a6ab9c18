-- Bitcoin Cash live (docs/networks.md, "Bitcoin Cash"): the seed's delisted row, active with
-- deposits and payouts; CashAddr deposit addresses from DEPOSIT_XPUB_BCH, read by Blockbook.
UPDATE currencies SET is_active = 1, is_deposit_enabled = 1, is_withdraw_enabled = 1
WHERE coin = 'BCH' AND network = 'BCH';
