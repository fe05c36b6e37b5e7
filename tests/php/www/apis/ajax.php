<?php
// ajax.php: sys_projectfolder and func, then the function's parameters
// (GET or POST, read through $_REQUEST; no token). The dues query is here;
// the other functions are in lib/functions.php.
//
// getduesDet (acid, type=RECEIPT|PAYMENT): the account's outstanding
// documents in the current books (company 1, year 2025):
// {"status":"success","acid":"C001","type":"RECEIPT","data":[{doc_no, date,
// due_date, amount, paid, balance}, ...]}.
require __DIR__ . '/../../lib/erp.php';
require __DIR__ . '/../../lib/functions.php';

$folder = erp_param('sys_projectfolder');
$mode = erp_mode($folder, 'Unknown project folder');
if ($mode === 'modern') {
    header('Content-Type: application/json; charset=utf-8');
}
$func = erp_param('func');
if (array_key_exists($func, ERP_FUNCTIONS)) {
    echo json_encode(call_user_func(ERP_FUNCTIONS[$func], $mode));
    exit;
}
if ($func !== 'getduesDet') {
    erp_fail('Unknown function: ' . $func);
}
$acid = erp_param('acid');
$type = strtoupper(erp_param('type'));
if ($type !== 'RECEIPT' && $type !== 'PAYMENT') {
    erp_fail('Invalid type: ' . erp_param('type') . ' (expected RECEIPT or PAYMENT)');
}

// Documents of the account, what was paid on each, and what is left.
$DUES_SQL = array(
    'RECEIPT' => "SELECT i.invoice_no AS doc_no, i.date, i.due_date, i.total AS amount,
                         COALESCE(SUM(r.amount), 0) AS paid,
                         i.total - COALESCE(SUM(r.amount), 0) AS balance
                  FROM sales_invoice i
                  LEFT JOIN receipt r
                    ON r.compid = i.compid AND r.yearid = i.yearid AND r.invoice_no = i.invoice_no
                  WHERE i.compid = %s AND i.yearid = %s AND i.customer = %s
                  GROUP BY i.id, i.invoice_no, i.date, i.due_date, i.total
                  HAVING balance > 0
                  ORDER BY i.date, i.invoice_no",
    'PAYMENT' => "SELECT b.bill_no AS doc_no, b.date, b.due_date, b.total AS amount,
                         COALESCE(SUM(p.amount), 0) AS paid,
                         b.total - COALESCE(SUM(p.amount), 0) AS balance
                  FROM purchase_bill b
                  LEFT JOIN payment p
                    ON p.compid = b.compid AND p.yearid = b.yearid AND p.bill_no = b.bill_no
                  WHERE b.compid = %s AND b.yearid = %s AND b.supplier = %s
                  GROUP BY b.id, b.bill_no, b.date, b.due_date, b.total
                  HAVING balance > 0
                  ORDER BY b.date, b.bill_no",
);
// Which kind of account has dues of which type.
$KIND_OF_TYPE = array('RECEIPT' => 'customer', 'PAYMENT' => 'supplier');

try {
    if ($mode === 'modern') {
        $accounts = erp_rows_prepared(
            'SELECT acid, kind FROM account WHERE compid = ? AND acid = ?', 'is', array(ERP_DUES_COMPID, $acid)
        );
    } else {
        $accounts = erp_rows_query(
            "SELECT acid, kind FROM account WHERE compid = '" . ERP_DUES_COMPID . "' AND acid = " . erp_quote($acid)
        );
    }
    if (count($accounts) === 0) {
        erp_fail('Unknown account: ' . $acid);
    }
    $account = $accounts[0];

    $rows = array();
    if ($account['kind'] === $KIND_OF_TYPE[$type]) {
        if ($mode === 'modern') {
            $rows = erp_rows_prepared(
                sprintf($DUES_SQL[$type], '?', '?', '?'), 'iis', array(ERP_DUES_COMPID, ERP_DUES_YEARID, $account['acid'])
            );
        } else {
            $rows = erp_rows_query(sprintf(
                $DUES_SQL[$type], "'" . ERP_DUES_COMPID . "'", "'" . ERP_DUES_YEARID . "'", erp_quote($account['acid'])
            ));
        }
    }
} catch (mysqli_sql_exception $e) {
    erp_fail('Database error');
}

echo json_encode(array('status' => 'success', 'acid' => $account['acid'], 'type' => $type, 'data' => $rows));
