-- create_table warehouse
CREATE TABLE warehouse1 (
  w_id INTEGER NOT NULL,
  w_name VARCHAR(10) NOT NULL,
  w_street_1 VARCHAR(20) NOT NULL,
  w_street_2 VARCHAR(20) NOT NULL,
  w_city VARCHAR(20) NOT NULL,
  w_state CHAR(2) NOT NULL,
  w_zip CHAR(9) NOT NULL,
  w_tax DECIMAL(4,4) NOT NULL,
  w_ytd DECIMAL(12,2) NOT NULL
);

-- create_table item
CREATE TABLE item1 (
  i_id INTEGER NOT NULL,
  i_im_id INTEGER NOT NULL,
  i_name VARCHAR(24) NOT NULL,
  i_price DECIMAL(5,2) NOT NULL,
  i_data VARCHAR(50) NOT NULL
);

-- create_table district
CREATE TABLE district1 (
  d_id SMALLINT NOT NULL,
  d_w_id INTEGER NOT NULL,
  d_name VARCHAR(10) NOT NULL,
  d_street_1 VARCHAR(20) NOT NULL,
  d_street_2 VARCHAR(20) NOT NULL,
  d_city VARCHAR(20) NOT NULL,
  d_state CHAR(2) NOT NULL,
  d_zip CHAR(9) NOT NULL,
  d_tax DECIMAL(4,4) NOT NULL,
  d_ytd DECIMAL(12,2) NOT NULL,
  d_next_o_id INTEGER NOT NULL
);

-- create_table customer
CREATE TABLE customer1 (
  c_id INTEGER NOT NULL,
  c_d_id SMALLINT NOT NULL,
  c_w_id INTEGER NOT NULL,
  c_first VARCHAR(16) NOT NULL,
  c_middle CHAR(2) NOT NULL,
  c_last VARCHAR(16) NOT NULL,
  c_street_1 VARCHAR(20) NOT NULL,
  c_street_2 VARCHAR(20) NOT NULL,
  c_city VARCHAR(20) NOT NULL,
  c_state CHAR(2) NOT NULL,
  c_zip CHAR(9) NOT NULL,
  c_phone CHAR(16) NOT NULL,
  c_since TIMESTAMP NOT NULL,
  c_credit CHAR(2) NOT NULL,
  c_credit_lim DECIMAL(12,2) NOT NULL,
  c_discount DECIMAL(4,4) NOT NULL,
  c_balance DECIMAL(12,2) NOT NULL,
  c_ytd_payment DECIMAL(12,2) NOT NULL,
  c_payment_cnt INTEGER NOT NULL,
  c_delivery_cnt INTEGER NOT NULL,
  c_data VARCHAR(500) NOT NULL
);

-- create_table history
CREATE TABLE history1 (
  h_c_id INTEGER NOT NULL,
  h_c_d_id SMALLINT NOT NULL,
  h_c_w_id INTEGER NOT NULL,
  h_d_id SMALLINT NOT NULL,
  h_w_id INTEGER NOT NULL,
  h_date TIMESTAMP NOT NULL,
  h_amount DECIMAL(6,2) NOT NULL,
  h_data VARCHAR(24) NOT NULL
);

-- create_table orders
CREATE TABLE orders1 (
  o_id INTEGER NOT NULL,
  o_d_id SMALLINT NOT NULL,
  o_w_id INTEGER NOT NULL,
  o_c_id INTEGER NOT NULL,
  o_entry_d TIMESTAMP NOT NULL,
  o_carrier_id SMALLINT,
  o_ol_cnt SMALLINT NOT NULL,
  o_all_local SMALLINT NOT NULL
);

-- create_table new_order
CREATE TABLE new_order1 (
  no_o_id INTEGER NOT NULL,
  no_d_id SMALLINT NOT NULL,
  no_w_id INTEGER NOT NULL
);

-- create_table stock
CREATE TABLE stock1 (
  s_i_id INTEGER NOT NULL,
  s_w_id INTEGER NOT NULL,
  s_quantity SMALLINT NOT NULL,
  s_dist_01 CHAR(24) NOT NULL,
  s_dist_02 CHAR(24) NOT NULL,
  s_dist_03 CHAR(24) NOT NULL,
  s_dist_04 CHAR(24) NOT NULL,
  s_dist_05 CHAR(24) NOT NULL,
  s_dist_06 CHAR(24) NOT NULL,
  s_dist_07 CHAR(24) NOT NULL,
  s_dist_08 CHAR(24) NOT NULL,
  s_dist_09 CHAR(24) NOT NULL,
  s_dist_10 CHAR(24) NOT NULL,
  s_ytd INTEGER NOT NULL,
  s_order_cnt INTEGER NOT NULL,
  s_remote_cnt INTEGER NOT NULL,
  s_data VARCHAR(50) NOT NULL
);

-- create_table order_line
CREATE TABLE order_line1 (
  ol_o_id INTEGER NOT NULL,
  ol_d_id SMALLINT NOT NULL,
  ol_w_id INTEGER NOT NULL,
  ol_number SMALLINT NOT NULL,
  ol_i_id INTEGER NOT NULL,
  ol_supply_w_id INTEGER NOT NULL,
  ol_delivery_d TIMESTAMP,
  ol_quantity SMALLINT NOT NULL,
  ol_amount DECIMAL(6,2) NOT NULL,
  ol_dist_info CHAR(24) NOT NULL
);

-- create_indexes warehouse 1
ALTER TABLE warehouse1 ADD PRIMARY KEY (w_id);

-- create_indexes item 1
ALTER TABLE item1 ADD PRIMARY KEY (i_id);

-- create_indexes district 1
ALTER TABLE district1 ADD PRIMARY KEY (d_w_id, d_id);

-- create_indexes customer 1
ALTER TABLE customer1 ADD PRIMARY KEY (c_w_id, c_d_id, c_id);

-- create_indexes customer 2
CREATE INDEX idx_customer_1 ON customer1 (c_w_id, c_d_id, c_last, c_first);

-- create_indexes orders 1
ALTER TABLE orders1 ADD PRIMARY KEY (o_w_id, o_d_id, o_id);

-- create_indexes orders 2
CREATE INDEX idx_orders_1 ON orders1 (o_w_id, o_d_id, o_c_id, o_id);

-- create_indexes new_order 1
ALTER TABLE new_order1 ADD PRIMARY KEY (no_w_id, no_d_id, no_o_id);

-- create_indexes stock 1
ALTER TABLE stock1 ADD PRIMARY KEY (s_w_id, s_i_id);

-- create_indexes order_line 1
ALTER TABLE order_line1 ADD PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number);

-- add_foreign_keys 1
ALTER TABLE district1 ADD CONSTRAINT fk_district_warehouse_1 FOREIGN KEY (d_w_id) REFERENCES warehouse1 (w_id);

-- add_foreign_keys 2
ALTER TABLE customer1 ADD CONSTRAINT fk_customer_district_1 FOREIGN KEY (c_w_id, c_d_id) REFERENCES district1 (d_w_id, d_id);

-- add_foreign_keys 3
ALTER TABLE history1 ADD CONSTRAINT fk_history_customer_1 FOREIGN KEY (h_c_w_id, h_c_d_id, h_c_id) REFERENCES customer1 (c_w_id, c_d_id, c_id);

-- add_foreign_keys 4
ALTER TABLE history1 ADD CONSTRAINT fk_history_district_1 FOREIGN KEY (h_w_id, h_d_id) REFERENCES district1 (d_w_id, d_id);

-- add_foreign_keys 5
ALTER TABLE orders1 ADD CONSTRAINT fk_orders_customer_1 FOREIGN KEY (o_w_id, o_d_id, o_c_id) REFERENCES customer1 (c_w_id, c_d_id, c_id);

-- add_foreign_keys 6
ALTER TABLE new_order1 ADD CONSTRAINT fk_new_order_orders_1 FOREIGN KEY (no_w_id, no_d_id, no_o_id) REFERENCES orders1 (o_w_id, o_d_id, o_id);

-- add_foreign_keys 7
ALTER TABLE order_line1 ADD CONSTRAINT fk_order_line_orders_1 FOREIGN KEY (ol_w_id, ol_d_id, ol_o_id) REFERENCES orders1 (o_w_id, o_d_id, o_id);

-- add_foreign_keys 8
ALTER TABLE order_line1 ADD CONSTRAINT fk_order_line_stock_1 FOREIGN KEY (ol_supply_w_id, ol_i_id) REFERENCES stock1 (s_w_id, s_i_id);

-- add_foreign_keys 9
ALTER TABLE stock1 ADD CONSTRAINT fk_stock_warehouse_1 FOREIGN KEY (s_w_id) REFERENCES warehouse1 (w_id);

-- add_foreign_keys 10
ALTER TABLE stock1 ADD CONSTRAINT fk_stock_item_1 FOREIGN KEY (s_i_id) REFERENCES item1 (i_id);

-- drop_table stock
DROP TABLE stock1;

-- table_exists stock
SELECT COUNT(*) FROM SYSCAT.TABLES WHERE TABSCHEMA = CURRENT SCHEMA AND TABNAME = 'STOCK1';

-- count_warehouses
SELECT COUNT(*), MAX(w_id) FROM warehouse1;

-- no_warehouse
SELECT w_tax FROM warehouse1 WHERE w_id = ?;

-- no_district
SELECT d_tax, d_next_o_id FROM district1 WHERE d_w_id = ? AND d_id = ? FOR UPDATE;

-- no_district_update
UPDATE district1 SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?;

-- no_customer
SELECT c_discount, c_last, c_credit FROM customer1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?;

-- no_order_insert
INSERT INTO orders1 (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, ?, ?);

-- no_new_order_insert
INSERT INTO new_order1 (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?);

-- no_item
SELECT i_price, i_name, i_data FROM item1 WHERE i_id = ?;

-- no_stock 1
SELECT s_quantity, s_data, s_dist_01 FROM stock1 WHERE s_w_id = ? AND s_i_id = ? FOR UPDATE;

-- no_stock 10
SELECT s_quantity, s_data, s_dist_10 FROM stock1 WHERE s_w_id = ? AND s_i_id = ? FOR UPDATE;

-- no_stock_update
UPDATE stock1 SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? WHERE s_w_id = ? AND s_i_id = ?;

-- no_order_line_insert
INSERT INTO order_line1 (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?);

-- pay_warehouse_update
UPDATE warehouse1 SET w_ytd = w_ytd + ? WHERE w_id = ?;

-- pay_warehouse
SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse1 WHERE w_id = ?;

-- pay_district_update
UPDATE district1 SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?;

-- pay_district
SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district1 WHERE d_w_id = ? AND d_id = ?;

-- customer_by_name
SELECT c_id FROM customer1 WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first;

-- pay_customer
SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance FROM customer1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE;

-- pay_customer_update
UPDATE customer1 SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?;

-- pay_customer_data
SELECT c_data FROM customer1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?;

-- pay_customer_data_update
UPDATE customer1 SET c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?;

-- pay_history_insert
INSERT INTO history1 (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, CURRENT_TIMESTAMP, ?, ?);

-- os_customer
SELECT c_balance, c_first, c_middle, c_last FROM customer1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?;

-- os_order
SELECT o_id, o_carrier_id, o_entry_d FROM orders1 WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC;

-- os_order_lines
SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line1 WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?;

-- dl_new_order
SELECT MIN(no_o_id) FROM new_order1 WHERE no_w_id = ? AND no_d_id = ?;

-- dl_new_order_delete
DELETE FROM new_order1 WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?;

-- dl_order
SELECT o_c_id FROM orders1 WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?;

-- dl_order_update
UPDATE orders1 SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?;

-- dl_order_line_update
UPDATE order_line1 SET ol_delivery_d = CURRENT_TIMESTAMP WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?;

-- dl_order_line_sum
SELECT SUM(ol_amount) FROM order_line1 WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?;

-- dl_customer_update
UPDATE customer1 SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?;

-- sl_district
SELECT d_next_o_id FROM district1 WHERE d_w_id = ? AND d_id = ?;

-- sl_stock_count
SELECT COUNT(DISTINCT s_i_id) FROM order_line1, stock1 WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?;

-- check 1
SELECT w_id, 0, w_ytd, (SELECT SUM(d_ytd) FROM district1 WHERE d_w_id = w_id) FROM warehouse1 ORDER BY w_id;

-- check 2
SELECT d_w_id, d_id, d_next_o_id - 1, (SELECT MAX(o_id) FROM orders1 WHERE o_w_id = d_w_id AND o_d_id = d_id), (SELECT MAX(no_o_id) FROM new_order1 WHERE no_w_id = d_w_id AND no_d_id = d_id) FROM district1 ORDER BY d_w_id, d_id;

-- check 3
SELECT d_w_id, d_id, (SELECT MAX(no_o_id) - MIN(no_o_id) + 1 FROM new_order1 WHERE no_w_id = d_w_id AND no_d_id = d_id), (SELECT COUNT(*) FROM new_order1 WHERE no_w_id = d_w_id AND no_d_id = d_id) FROM district1 ORDER BY d_w_id, d_id;

-- check 4
SELECT d_w_id, d_id, (SELECT SUM(o_ol_cnt) FROM orders1 WHERE o_w_id = d_w_id AND o_d_id = d_id), (SELECT COUNT(*) FROM order_line1 WHERE ol_w_id = d_w_id AND ol_d_id = d_id) FROM district1 ORDER BY d_w_id, d_id;

-- check 5
SELECT d_w_id, d_id, 0, (SELECT COUNT(*) FROM orders1 WHERE o_w_id = d_w_id AND o_d_id = d_id AND CASE WHEN o_carrier_id IS NULL THEN 1 ELSE 0 END <> CASE WHEN EXISTS (SELECT 1 FROM new_order1 WHERE no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id) THEN 1 ELSE 0 END) FROM district1 ORDER BY d_w_id, d_id;

-- check 6
SELECT d_w_id, d_id, 0, (SELECT COUNT(*) FROM orders1 WHERE o_w_id = d_w_id AND o_d_id = d_id AND o_ol_cnt <> (SELECT COUNT(*) FROM order_line1 WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id)) FROM district1 ORDER BY d_w_id, d_id;

-- check 7
SELECT d_w_id, d_id, 0, (SELECT COUNT(*) FROM order_line1, orders1 WHERE ol_w_id = d_w_id AND ol_d_id = d_id AND o_w_id = ol_w_id AND o_d_id = ol_d_id AND o_id = ol_o_id AND CASE WHEN ol_delivery_d IS NULL THEN 1 ELSE 0 END <> CASE WHEN o_carrier_id IS NULL THEN 1 ELSE 0 END) FROM district1 ORDER BY d_w_id, d_id;

-- check 8
SELECT w_id, 0, w_ytd, (SELECT SUM(h_amount) FROM history1 WHERE h_w_id = w_id) FROM warehouse1 ORDER BY w_id;

-- check 9
SELECT d_w_id, d_id, d_ytd, (SELECT SUM(h_amount) FROM history1 WHERE h_w_id = d_w_id AND h_d_id = d_id) FROM district1 ORDER BY d_w_id, d_id;

-- check 12
SELECT c_w_id, c_d_id, 0, SUM(CASE WHEN ABS(c_balance + c_ytd_payment - COALESCE(amount, 0)) > 0.005 THEN 1 ELSE 0 END) FROM customer1 LEFT JOIN (SELECT o_w_id, o_d_id, o_c_id, SUM(ol_amount) AS amount FROM orders1, order_line1 WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id AND ol_delivery_d IS NOT NULL GROUP BY o_w_id, o_d_id, o_c_id) delivered ON o_w_id = c_w_id AND o_d_id = c_d_id AND o_c_id = c_id GROUP BY c_w_id, c_d_id ORDER BY c_w_id, c_d_id;
