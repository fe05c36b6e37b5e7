<?php
// Not part of the ERP: the test suites' oracle. What SQL itself says about
// a table, computed by MariaDB: the number of rows and the exact sum of a
// DECIMAL column, as text.
// GET /_test/expected.php?table=sales_invoice&column=amount&compid=1&yearid=2025
// -> {"rows":"40","sum":"1234.56"}
require __DIR__ . '/../../lib/erp.php';

$SUMMABLE = array(
    'sales_invoice' => array('amount', 'tax', 'total'),
    'purchase_bill' => array('amount', 'tax', 'total'),
    'account' => array('credit_limit'),
);
$table = erp_param('table');
$column = erp_param('column');
if (!isset($SUMMABLE[$table]) || !in_array($column, $SUMMABLE[$table], true)) {
    erp_fail('Not summable: ' . $table . '.' . $column);
}
$where = "compid = " . (int) erp_param('compid');
if ($table !== 'account') {
    $where .= " AND yearid = " . (int) erp_param('yearid');
}
$rows = erp_rows_query(
    "SELECT COUNT(*) AS rows_, CAST(SUM(" . $column . ") AS CHAR) AS sum_ FROM " . $table . " WHERE " . $where
);
header('Content-Type: application/json; charset=utf-8');
echo json_encode(array('rows' => $rows[0]['rows_'], 'sum' => $rows[0]['sum_']));
