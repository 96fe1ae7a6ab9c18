-- Base (docs/networks.md, "Add an EVM chain"): ETH and Circle's native USDC.
INSERT INTO currencies (id, coin, network, name, is_active, is_deposit_enabled, is_withdraw_enabled, min_amount, max_amount, min_confirmations, decimals, is_memo, withdraw_fee, contract_address, explorer_tx_url, explorer_address_url, sort_order) VALUES
('6f1c1f2e-0c1a-4b7e-9a43-000000000003', 'ETH',  'BASE', 'Ether (Base)',    1, 1, 1, '0.005', '200',    1, 18, 0, '0.0001', NULL, 'https://basescan.org/tx/{txid}', 'https://basescan.org/address/{address}', 23),
('6f1c1f2e-0c1a-4b7e-9a43-000000000006', 'USDC', 'BASE', 'USD Coin (Base)', 1, 1, 1, '10',    '500000', 1, 6,  0, '0.5',    '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'https://basescan.org/tx/{txid}', 'https://basescan.org/address/{address}', 44);
