<?php
// The table data fetch: req=getdata, project, accesstoken, yearid, compid,
// table, from $_REQUEST (GET query or POST form). Answers
// {"status":"success","data":[rows]} or {"status":"error","message":"..."}.
require __DIR__ . '/../../lib/erp.php';

// The tables that may be asked for: name => (source table, filter columns, order).
$TABLES = array(
    'account' => array('account', array('compid'), 'acid'),
    'sales_invoice' => array('sales_invoice', array('compid', 'yearid'), 'id'),
    'purchase_bill' => array('purchase_bill', array('compid', 'yearid'), 'id'),
    'receipt' => array('receipt', array('compid', 'yearid'), 'id'),
    'payment' => array('payment', array('compid', 'yearid'), 'id'),
    'credit_note' => array('credit_note', array('compid', 'yearid'), 'id'),
    'fx_rate' => array('fx_rate', array('compid', 'yearid'), 'id'),
    'voucher' => array('voucher', array('compid', 'yearid'), 'id'),
    // A code path that prints a PHP warning before the JSON.
    'noisy' => array('noisy', array('compid', 'yearid'), 'id'),
    // A code path that dies with a fatal error after its query.
    'broken' => array('sales_invoice', array('compid', 'yearid'), 'id'),
    // Rows echoed one by one (to save memory), and what stops such a script
    // half way: a function that no longer exists, the memory limit, the
    // time limit. PHP prints its error where the output had got to.
    'echoed_fatal' => array('sales_invoice', array('compid', 'yearid'), 'id'),
    'echoed_memory' => array('sales_invoice', array('compid', 'yearid'), 'id'),
    'echoed_timeout' => array('sales_invoice', array('compid', 'yearid'), 'id'),
    // The connection in latin1: json_encode fails on the names that are not
    // ASCII, returns false, and `echo false` prints nothing.
    'latin1' => array('account', array('compid'), 'acid'),
);

$req = erp_param('req');
if ($req !== 'getdata') {
    erp_fail('Unknown request: ' . $req);
}
$project = erp_param('project');
$mode = erp_mode($project, 'Unknown project');
if ($mode === 'modern') {
    // The legacy code never set one: PHP's default, text/html, goes out.
    header('Content-Type: application/json; charset=utf-8');
}
$token = erp_param('accesstoken');
if (!hash_equals(ERP_TOKEN, $token)) {
    erp_fail('Invalid access token');
}
$compid = erp_param('compid');
$yearid = erp_param('yearid');
if (!ctype_digit($compid) || !ctype_digit($yearid)) {
    erp_fail('Invalid company or year');
}
$compid = (int) $compid;
$yearid = (int) $yearid;
$table = erp_param('table');
if (!isset($TABLES[$table])) {
    erp_fail('Unknown table: ' . $table);
}
list($source, $filters, $order) = $TABLES[$table];
if ($table === 'latin1') {
    erp_db()->set_charset('latin1');
}

try {
    if ($mode === 'modern') {
        $known = erp_rows_prepared(
            'SELECT 1 FROM fin_year WHERE compid = ? AND yearid = ?', 'ii', array($compid, $yearid)
        );
    } else {
        $known = erp_rows_query(
            "SELECT 1 FROM fin_year WHERE compid = '" . $compid . "' AND yearid = '" . $yearid . "'"
        );
    }
    if (count($known) === 0) {
        erp_fail('Invalid company or year');
    }

    $values = array('compid' => $compid, 'yearid' => $yearid);
    if ($mode === 'modern') {
        $where = array();
        $params = array();
        foreach ($filters as $column) {
            $where[] = $column . ' = ?';
            $params[] = $values[$column];
        }
        $sql = 'SELECT * FROM ' . $source . ' WHERE ' . implode(' AND ', $where) . ' ORDER BY ' . $order;
        if ($table === 'noisy') {
            // Left over from debugging: $debug_where is set nowhere, so PHP
            // warns (printed before the JSON with display_errors on).
            $sql .= $debug_where;
        }
        $rows = erp_rows_prepared($sql, str_repeat('i', count($params)), $params);
    } else {
        $sql = "SELECT * FROM " . $source . " WHERE 1=1";
        foreach ($filters as $column) {
            $sql .= " AND " . $column . " = " . erp_quote((string) $values[$column]);
        }
        if ($table === 'noisy') {
            $sql .= $debug_where;
        }
        $sql .= " ORDER BY " . $order;
        $rows = erp_rows_query($sql);
    }
} catch (mysqli_sql_exception $e) {
    erp_fail('Database error');
}

if (strpos($table, 'echoed_') === 0) {
    echo '{"status":"success","data":[';
    $half = intdiv(count($rows), 2);
    for ($i = 0; $i < $half; $i++) {
        echo json_encode($rows[$i]), ',';
        flush();
    }
    if ($table === 'echoed_fatal') {
        // Renamed in a refactor, still called here: "Call to undefined function".
        echo json_encode(erp_format_row($rows[$half]));
    } elseif ($table === 'echoed_memory') {
        ini_set('memory_limit', '4M');
        $copy = str_repeat('x', 8 << 20);
    } else {
        set_time_limit(1);
        for ($spin = 0; ; $spin++) {
        }
    }
}

if ($table === 'broken') {
    // erp_format_rows() was removed in a refactor: "Call to undefined function".
    $rows = erp_format_rows($rows);
}

echo json_encode(array('status' => 'success', 'data' => $rows));
