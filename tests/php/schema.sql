-- The books of the PHP test service (tests/php/README.md): a few companies
-- and years of a small ERP, with the column types a PHP ERP over MariaDB
-- really has. Deterministic: the same rows on every load.
--
-- Zero dates ('0000-00-00') and zero datetimes are stored on purpose, as
-- old MySQL applications did; the session's sql_mode allows them.

SET NAMES utf8mb4;
SET SESSION sql_mode = 'NO_ENGINE_SUBSTITUTION';

DROP DATABASE IF EXISTS erpdata_php;
CREATE DATABASE erpdata_php CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
USE erpdata_php;

-- Which company has which financial years (compid/yearid are checked here).
CREATE TABLE fin_year (
  compid INT NOT NULL,
  yearid INT NOT NULL,
  starts DATE NOT NULL,
  ends DATE NOT NULL,
  PRIMARY KEY (compid, yearid)
);
INSERT INTO fin_year VALUES
  (1, 2024, '2024-01-01', '2024-12-31'),
  (1, 2025, '2025-01-01', '2025-12-31'),
  (2, 2024, '2024-01-01', '2024-12-31'),
  (2, 2025, '2025-01-01', '2025-12-31');

CREATE TABLE account (
  compid INT NOT NULL,
  acid VARCHAR(16) NOT NULL,
  name VARCHAR(100) NOT NULL,
  kind VARCHAR(10) NOT NULL,
  city VARCHAR(60) NULL,
  credit_limit DECIMAL(14,2) NOT NULL DEFAULT 0.00,
  credit_days INT NOT NULL DEFAULT 0,
  active TINYINT(1) NOT NULL DEFAULT 1,
  created_at DATETIME NOT NULL DEFAULT '0000-00-00 00:00:00',
  updated_at DATETIME(6) NULL,
  PRIMARY KEY (compid, acid)
);

-- Company 1. '007' is a customer whose id looks like a number; C010's
-- name has an emoji (a surrogate pair in json_encode), C007's CJK text.
INSERT INTO account VALUES
  (1, 'C001', 'Müller GmbH', 'customer', 'Berlin', 50000.00, 30, 1, '2019-07-15 10:00:00', '2025-04-01 13:45:00.123456'),
  (1, 'C002', 'A/B Traders', 'customer', 'Mumbai', 25000.50, 45, 1, '2019-07-15 10:00:00', '2025-03-02 08:00:00.500000'),
  (1, 'C003', 'Café "Zum Löwen"', 'customer', NULL, 8000.00, 15, 1, '0000-00-00 00:00:00', '2025-01-10 17:30:05.000001'),
  (1, 'C004', 'Østergaard ApS', 'customer', 'Aarhus', 12000.00, 30, 1, '2020-02-29 12:00:00', '2024-12-31 23:59:59.999999'),
  (1, 'C005', 'Société Générale de Café', 'customer', 'Lyon', 0.00, 0, 0, '0000-00-00 00:00:00', '0000-00-00 00:00:00.000000'),
  (1, 'C006', 'Śląsk Sp. z o.o.', 'customer', 'Katowice', 1250000.75, 60, 1, '2021-05-05 05:05:05', '2025-02-14 09:15:30.250000'),
  (1, 'C007', 'Tokyo 商事', 'customer', 'Tokyo', 30000.00, 30, 1, '2021-06-01 00:00:00', NULL),
  (1, 'C008', 'Smith & Sons', 'customer', NULL, 15000.00, 30, 1, '2022-01-03 08:30:00', '2025-01-03 08:30:00.000000'),
  (1, 'C009', 'O''Brien Ltd', 'customer', 'Dublin', 9999.99, 21, 1, '2022-03-17 17:03:00', '2025-03-17 17:03:00.170300'),
  (1, 'C010', 'Emoji Shop 🛒', 'customer', 'Seoul', 500.00, 7, 1, '2023-09-09 09:09:09', '2025-05-05 05:05:05.050505'),
  (1, 'C011', 'Plain Co', 'customer', 'Leeds', 7500.00, 30, 1, '2023-11-11 11:11:11', '2025-01-01 00:00:00.000000'),
  (1, 'C012', 'Always Pays Ltd', 'customer', NULL, 100000.00, 10, 1, '2024-01-02 10:00:00', '2025-04-30 18:00:00.999000'),
  (1, '007', 'Bond Supplies', 'customer', 'London', 7007.00, 7, 1, '2007-07-07 07:07:07', '2025-07-07 07:07:07.007007'),
  (1, 'S001', 'Nordwind Logistik AG', 'supplier', 'Hamburg', 0.00, 30, 1, '2019-07-15 10:00:00', '2025-02-01 10:00:00.100000'),
  (1, 'S002', 'Paper/Pulp Inc.', 'supplier', 'Toronto', 0.00, 45, 1, '2019-08-01 09:00:00', '2025-02-02 10:00:00.200000'),
  (1, 'S003', 'Ümit Tekstil A.Ş.', 'supplier', 'İzmir', 0.00, 30, 1, '0000-00-00 00:00:00', '2025-02-03 10:00:00.300000'),
  (1, 'S004', 'Hydro Power Co', 'supplier', NULL, 0.00, 15, 1, '2020-10-10 10:10:10', '2025-02-04 10:00:00.400000'),
  (1, 'S005', 'Żabka Foods', 'supplier', 'Warsaw', 0.00, 30, 0, '2020-12-01 00:00:00', '2025-02-05 10:00:00.500000'),
  (1, 'S006', 'Office Depot 24/7', 'supplier', 'Austin', 0.00, 30, 1, '2021-01-15 14:00:00', '2025-02-06 10:00:00.600000'),
  (1, 'S007', 'Große Bäckerei', 'supplier', 'München', 0.00, 7, 1, '2021-04-01 06:00:00', '2025-02-07 10:00:00.700000'),
  (1, 'S008', 'Always Paid GmbH', 'supplier', 'Wien', 0.00, 30, 1, '2022-06-30 16:45:00', '2025-02-08 10:00:00.800000');

-- Company 2 has the same accounts, with doubled credit limits.
INSERT INTO account
  SELECT 2, acid, name, kind, city, credit_limit * 2, credit_days, active, created_at, updated_at
  FROM account WHERE compid = 1;

-- 1..40, to generate documents.
CREATE TABLE _n (n INT PRIMARY KEY);
INSERT INTO _n VALUES (1),(2),(3),(4),(5),(6),(7),(8),(9),(10),(11),(12),(13),(14),(15),(16),(17),(18),(19),(20),
  (21),(22),(23),(24),(25),(26),(27),(28),(29),(30),(31),(32),(33),(34),(35),(36),(37),(38),(39),(40);

-- Sizes of each company's books, as in the Rust sandbox.
CREATE TABLE _books (compid INT, yearid INT, invoices INT, bills INT, ord INT);
INSERT INTO _books VALUES (1, 2025, 40, 24, 1), (1, 2024, 34, 20, 2), (2, 2025, 28, 16, 3), (2, 2024, 22, 14, 4);

CREATE TABLE sales_invoice (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  compid INT NOT NULL,
  yearid INT NOT NULL,
  invoice_no VARCHAR(20) NOT NULL,
  date DATE NOT NULL,
  due_date DATE NOT NULL,
  customer VARCHAR(16) NOT NULL,
  amount DECIMAL(14,2) NOT NULL,
  tax DECIMAL(14,2) NOT NULL DEFAULT 0.00,
  total DECIMAL(14,2) NOT NULL DEFAULT 0.00,
  items INT NOT NULL,
  posted_at DATETIME NOT NULL DEFAULT '0000-00-00 00:00:00',
  cleared_on DATE NOT NULL DEFAULT '0000-00-00',
  remarks VARCHAR(200) NULL,
  KEY (compid, yearid)
);

-- Invoice 1 is 1500.00, 6 over a million, 8 zero, 10 a credit note;
-- every 4th is not cleared (zero date), the last of each year is a draft
-- (zero posted_at), every 3rd has no remarks (NULL), 5 an empty one.
INSERT INTO sales_invoice
  (compid, yearid, invoice_no, date, due_date, customer, amount, items, posted_at, cleared_on, remarks)
SELECT b.compid, b.yearid,
  CONCAT('INV-', b.yearid, '-', LPAD(n.n, 4, '0')),
  MAKEDATE(b.yearid, 1) + INTERVAL (n.n - 1) * 3 DAY,
  MAKEDATE(b.yearid, 1) + INTERVAL (n.n - 1) * 3 + 30 DAY,
  ELT(1 + (n.n - 1) MOD 13, 'C001', 'C002', 'C003', 'C004', 'C005', 'C006', 'C007',
      'C008', 'C009', 'C010', 'C011', 'C012', '007'),
  CASE n.n
    WHEN 1 THEN 1500.00
    WHEN 6 THEN 1234567.89
    WHEN 8 THEN 0.00
    WHEN 10 THEN -250.00
    ELSE ((n.n * 7919 + b.yearid * 31 + b.compid * 104729) MOD 900000) / 100 + 250
  END,
  1 + (n.n * 7) MOD 12,
  CASE WHEN n.n = b.invoices THEN '0000-00-00 00:00:00'
       ELSE TIMESTAMP(MAKEDATE(b.yearid, 1) + INTERVAL (n.n - 1) * 3 DAY,
                      SEC_TO_TIME(32400 + (n.n * 1373) MOD 36000)) END,
  CASE WHEN n.n MOD 4 = 0 THEN '0000-00-00'
       ELSE MAKEDATE(b.yearid, 1) + INTERVAL (n.n - 1) * 3 + 20 + n.n MOD 9 DAY END,
  CASE WHEN n.n = 2 THEN 'Delivered ✓ 👍'
       WHEN n.n = 3 THEN 'Ref: A/B-7 "urgent"'
       WHEN n.n = 5 THEN ''
       WHEN n.n MOD 3 = 0 THEN NULL
       ELSE CONCAT('Order ', n.n) END
FROM _books b JOIN _n n ON n.n <= b.invoices
ORDER BY b.ord, n.n;

UPDATE sales_invoice SET tax = ROUND(amount * IF(compid = 1, 0.10, 0.19), 2);
UPDATE sales_invoice SET total = amount + tax;

CREATE TABLE purchase_bill (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  compid INT NOT NULL,
  yearid INT NOT NULL,
  bill_no VARCHAR(20) NOT NULL,
  date DATE NOT NULL,
  due_date DATE NOT NULL,
  supplier VARCHAR(16) NOT NULL,
  amount DECIMAL(14,2) NOT NULL,
  tax DECIMAL(14,2) NOT NULL DEFAULT 0.00,
  total DECIMAL(14,2) NOT NULL DEFAULT 0.00,
  items INT NOT NULL,
  posted_at DATETIME NOT NULL DEFAULT '0000-00-00 00:00:00',
  paid_on DATE NOT NULL DEFAULT '0000-00-00',
  remarks VARCHAR(200) NULL,
  KEY (compid, yearid)
);

-- Bill 5 is over a million; every 3rd is unpaid (zero date).
INSERT INTO purchase_bill
  (compid, yearid, bill_no, date, due_date, supplier, amount, items, posted_at, paid_on, remarks)
SELECT b.compid, b.yearid,
  CONCAT('BILL-', b.yearid, '-', LPAD(n.n, 4, '0')),
  MAKEDATE(b.yearid, 1) + INTERVAL (n.n - 1) * 5 DAY,
  MAKEDATE(b.yearid, 1) + INTERVAL (n.n - 1) * 5 + 45 DAY,
  ELT(1 + (n.n - 1) MOD 8, 'S001', 'S002', 'S003', 'S004', 'S005', 'S006', 'S007', 'S008'),
  CASE n.n
    WHEN 1 THEN 980.40
    WHEN 5 THEN 2500000.00
    ELSE ((n.n * 6007 + b.yearid * 13 + b.compid * 7727) MOD 500000) / 100 + 100
  END,
  1 + (n.n * 5) MOD 9,
  TIMESTAMP(MAKEDATE(b.yearid, 1) + INTERVAL (n.n - 1) * 5 DAY, SEC_TO_TIME(28800 + (n.n * 977) MOD 30000)),
  CASE WHEN n.n MOD 3 = 0 THEN '0000-00-00'
       ELSE MAKEDATE(b.yearid, 1) + INTERVAL (n.n - 1) * 5 + 40 DAY END,
  CASE WHEN n.n MOD 2 = 0 THEN NULL ELSE CONCAT('PO ', 1000 + n.n, ' / Lager Süd') END
FROM _books b JOIN _n n ON n.n <= b.bills
ORDER BY b.ord, n.n;

UPDATE purchase_bill SET tax = ROUND(amount * IF(compid = 1, 0.10, 0.19), 2);
UPDATE purchase_bill SET total = amount + tax;

CREATE TABLE receipt (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  compid INT NOT NULL,
  yearid INT NOT NULL,
  receipt_no VARCHAR(20) NOT NULL,
  date DATE NOT NULL,
  customer VARCHAR(16) NOT NULL,
  invoice_no VARCHAR(20) NOT NULL,
  amount DECIMAL(14,2) NOT NULL,
  mode VARCHAR(10) NOT NULL,
  KEY (compid, yearid)
);

-- C012's invoices and every 3rd are paid in full; every 3rd + 1 (from 4)
-- half; the rest not at all.
INSERT INTO receipt (compid, yearid, receipt_no, date, customer, invoice_no, amount, mode)
SELECT i.compid, i.yearid,
  CONCAT('RCT-', i.yearid, '-', RIGHT(i.invoice_no, 4)),
  i.date + INTERVAL 10 DAY, i.customer, i.invoice_no,
  IF(i.customer = 'C012' OR CAST(RIGHT(i.invoice_no, 4) AS UNSIGNED) MOD 3 = 0, i.total, ROUND(i.total / 2, 2)),
  IF(i.customer = 'C012' OR CAST(RIGHT(i.invoice_no, 4) AS UNSIGNED) MOD 3 = 0, 'bank', 'cash')
FROM sales_invoice i
WHERE i.total > 0
  AND (i.customer = 'C012'
       OR CAST(RIGHT(i.invoice_no, 4) AS UNSIGNED) MOD 3 = 0
       OR (CAST(RIGHT(i.invoice_no, 4) AS UNSIGNED) MOD 3 = 1 AND CAST(RIGHT(i.invoice_no, 4) AS UNSIGNED) > 1))
ORDER BY i.id;

CREATE TABLE payment (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  compid INT NOT NULL,
  yearid INT NOT NULL,
  payment_no VARCHAR(20) NOT NULL,
  date DATE NOT NULL,
  supplier VARCHAR(16) NOT NULL,
  bill_no VARCHAR(20) NOT NULL,
  amount DECIMAL(14,2) NOT NULL,
  mode VARCHAR(10) NOT NULL,
  KEY (compid, yearid)
);

-- S008's bills and the even ones are paid in full; every 4th + 1 (from 5)
-- half; the rest not at all.
INSERT INTO payment (compid, yearid, payment_no, date, supplier, bill_no, amount, mode)
SELECT b.compid, b.yearid,
  CONCAT('PAY-', b.yearid, '-', RIGHT(b.bill_no, 4)),
  b.date + INTERVAL 20 DAY, b.supplier, b.bill_no,
  IF(b.supplier = 'S008' OR CAST(RIGHT(b.bill_no, 4) AS UNSIGNED) MOD 2 = 0, b.total, ROUND(b.total / 2, 2)),
  'bank'
FROM purchase_bill b
WHERE b.supplier = 'S008'
   OR CAST(RIGHT(b.bill_no, 4) AS UNSIGNED) MOD 2 = 0
   OR (CAST(RIGHT(b.bill_no, 4) AS UNSIGNED) MOD 4 = 1 AND CAST(RIGHT(b.bill_no, 4) AS UNSIGNED) > 1)
ORDER BY b.id;

-- Credit notes: company 1 gives no discounts and has settled none yet
-- (discount and settled_on NULL in every row), company 2 has both: a
-- column NULL in one company's rows and money or dates in another's.
CREATE TABLE credit_note (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  compid INT NOT NULL,
  yearid INT NOT NULL,
  note_no VARCHAR(20) NOT NULL,
  amount DECIMAL(14,2) NOT NULL,
  discount DECIMAL(14,2) NULL,
  settled_on DATE NULL,
  KEY (compid, yearid)
);
INSERT INTO credit_note (compid, yearid, note_no, amount, discount, settled_on) VALUES
  (1, 2025, 'CN-2025-0001', 120.00, NULL, NULL),
  (1, 2025, 'CN-2025-0002', 75.50, NULL, NULL),
  (2, 2025, 'CN-2025-0001', 310.00, 12.50, '2025-03-01'),
  (2, 2025, 'CN-2025-0002', 99.99, 0.01, '2025-04-15');

-- Exchange rates, a DOUBLE: sent with the digits each value needs, two
-- after the point at most in company 1, four in company 2.
CREATE TABLE fx_rate (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  compid INT NOT NULL,
  yearid INT NOT NULL,
  currency CHAR(3) NOT NULL,
  rate DOUBLE NOT NULL,
  KEY (compid, yearid)
);
INSERT INTO fx_rate (compid, yearid, currency, rate) VALUES
  (1, 2025, 'INR', 83.25),
  (1, 2025, 'CHF', 2),
  (2, 2025, 'USD', 1.0825),
  (2, 2025, 'GBP', 0.125);

-- Vouchers: company 1 numbers its references, company 2 writes them with
-- a prefix (and one with a leading zero): a VARCHAR column that is
-- numbers in one company's rows and text in another's.
CREATE TABLE voucher (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  compid INT NOT NULL,
  yearid INT NOT NULL,
  ref VARCHAR(10) NOT NULL,
  KEY (compid, yearid)
);
INSERT INTO voucher (compid, yearid, ref) VALUES
  (1, 2025, '1001'),
  (1, 2025, '1002'),
  (2, 2025, 'A-17'),
  (2, 2025, '0042');

-- Served by the `noisy` table name, whose code path prints a PHP warning
-- before the JSON (www/apis/dataapi.php).
CREATE TABLE noisy (
  compid INT NOT NULL,
  yearid INT NOT NULL,
  id INT NOT NULL,
  label VARCHAR(40) NOT NULL,
  amount DECIMAL(10,2) NOT NULL,
  PRIMARY KEY (compid, yearid, id)
);
INSERT INTO noisy VALUES
  (1, 2025, 1, 'first', 10.50),
  (1, 2025, 2, 'zweite Zeile', 20.00),
  (1, 2025, 3, 'third', 0.05);

DROP TABLE _n;
DROP TABLE _books;
