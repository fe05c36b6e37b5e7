<?php
// The other functions of ajax.php, each answering in its own shape, as the
// functions of a real PHP ERP written at different times do:
//
//   getduesSumm                        {"status":"success","data":[{acid, name, documents,
//                                       amount, paid, balance, oldest_due_date}, ...]}
//   avgPayDays  acid                   {"status":"success","acid":"C001","payments":5,
//                                       "avg_pay_days":"23.4000"}   (no data: fields beside status)
//   netProfit   sdate edate            "1234.50"                   (a bare JSON value)
//   grossProfit sdate edate            {"status":"success","data":{sales, cost_of_sales, gross_profit}}
//   scheduleDet schedule sdate edate   {"status":"success","schedule":"Sundry Debtors",
//                                       "data":[{acid, name, debit, credit, balance}, ...]}
//
// Sums are DECIMAL (strings from mysqli), counts BIGINT (numbers on the
// modern path, strings on the legacy one), AVG(DATEDIFF()) DECIMAL(14,4).
// Over company 1: getduesSumm over its current books (as getduesDet), the
// ranges over every year.

const ERP_FUNCTIONS = array(
    'getduesSumm' => 'erp_dues_summary',
    'avgPayDays' => 'erp_avg_pay_days',
    'netProfit' => 'erp_net_profit',
    'grossProfit' => 'erp_gross_profit',
    'scheduleDet' => 'erp_schedule',
);

// The schedules scheduleDet knows, and the kind of account under each.
const ERP_SCHEDULES = array('sundry debtors' => 'customer', 'sundry creditors' => 'supplier');

// Runs $sql with '?' placeholders: prepared on the modern path, quoted into
// the text on the legacy one.
function erp_select($mode, $sql, array $params)
{
    try {
        if ($mode === 'modern') {
            return erp_rows_prepared($sql, str_repeat('s', count($params)), $params);
        }
        $parts = explode('?', $sql);
        $text = array_shift($parts);
        foreach ($parts as $i => $part) {
            $text .= erp_quote((string) $params[$i]) . $part;
        }
        return erp_rows_query($text);
    } catch (mysqli_sql_exception $e) {
        erp_fail('Database error');
    }
}

function erp_date_param($name)
{
    $value = erp_param($name);
    $date = DateTime::createFromFormat('!Y-m-d', $value);
    if ($date === false || $date->format('Y-m-d') !== $value) {
        erp_fail('Invalid date: ' . $name . '=' . $value);
    }
    return $value;
}

function erp_range()
{
    $start = erp_date_param('sdate');
    $end = erp_date_param('edate');
    if ($start > $end) {
        erp_fail('sdate is after edate');
    }
    return array($start, $end);
}

function erp_dues_summary($mode)
{
    $rows = erp_select($mode, "
        SELECT a.acid, a.name, COUNT(*) AS documents, SUM(d.amount) AS amount,
               SUM(d.paid) AS paid, SUM(d.balance) AS balance, MIN(d.due_date) AS oldest_due_date
        FROM (SELECT i.customer, i.due_date, i.total AS amount,
                     COALESCE(SUM(r.amount), 0) AS paid,
                     i.total - COALESCE(SUM(r.amount), 0) AS balance
              FROM sales_invoice i
              LEFT JOIN receipt r
                ON r.compid = i.compid AND r.yearid = i.yearid AND r.invoice_no = i.invoice_no
              WHERE i.compid = ? AND i.yearid = ?
              GROUP BY i.id, i.customer, i.due_date, i.total
              HAVING balance > 0) d
        JOIN account a ON a.compid = ? AND a.acid = d.customer
        GROUP BY a.acid, a.name
        ORDER BY a.acid", array(ERP_DUES_COMPID, ERP_DUES_YEARID, ERP_DUES_COMPID));
    return array('status' => 'success', 'data' => $rows);
}

function erp_avg_pay_days($mode)
{
    $acid = erp_param('acid');
    $accounts = erp_select($mode, 'SELECT acid, kind FROM account WHERE compid = ? AND acid = ?',
        array(ERP_DUES_COMPID, $acid));
    if (count($accounts) === 0) {
        erp_fail('Unknown account: ' . $acid);
    }
    $account = $accounts[0];
    $sql = $account['kind'] === 'customer'
        ? 'SELECT COUNT(s.id) AS payments, AVG(DATEDIFF(s.date, d.date)) AS avg_pay_days
           FROM receipt s JOIN sales_invoice d
             ON d.compid = s.compid AND d.yearid = s.yearid AND d.invoice_no = s.invoice_no
           WHERE s.compid = ? AND s.customer = ?'
        : 'SELECT COUNT(s.id) AS payments, AVG(DATEDIFF(s.date, d.date)) AS avg_pay_days
           FROM payment s JOIN purchase_bill d
             ON d.compid = s.compid AND d.yearid = s.yearid AND d.bill_no = s.bill_no
           WHERE s.compid = ? AND s.supplier = ?';
    $row = erp_select($mode, $sql, array(ERP_DUES_COMPID, $account['acid']))[0];
    return array('status' => 'success', 'acid' => $account['acid'],
        'payments' => $row['payments'], 'avg_pay_days' => $row['avg_pay_days']);
}

// Sales and purchases over a range: (invoices, bills) of the given column.
function erp_sums($mode, $column, $start, $end)
{
    return erp_select($mode, "
        SELECT (SELECT COALESCE(SUM($column), 0) FROM sales_invoice
                WHERE compid = ? AND date BETWEEN ? AND ?) AS sales,
               (SELECT COALESCE(SUM($column), 0) FROM purchase_bill
                WHERE compid = ? AND date BETWEEN ? AND ?) AS purchases,
               (SELECT COALESCE(SUM($column), 0) FROM sales_invoice
                WHERE compid = ? AND date BETWEEN ? AND ?)
             - (SELECT COALESCE(SUM($column), 0) FROM purchase_bill
                WHERE compid = ? AND date BETWEEN ? AND ?) AS profit",
        array(ERP_DUES_COMPID, $start, $end, ERP_DUES_COMPID, $start, $end,
              ERP_DUES_COMPID, $start, $end, ERP_DUES_COMPID, $start, $end))[0];
}

function erp_net_profit($mode)
{
    list($start, $end) = erp_range();
    return erp_sums($mode, 'total', $start, $end)['profit'];
}

function erp_gross_profit($mode)
{
    list($start, $end) = erp_range();
    $sums = erp_sums($mode, 'amount', $start, $end);
    return array('status' => 'success', 'data' => array(
        'sales' => $sums['sales'], 'cost_of_sales' => $sums['purchases'], 'gross_profit' => $sums['profit']));
}

function erp_schedule($mode)
{
    $schedule = erp_param('schedule');
    $kind = ERP_SCHEDULES[strtolower($schedule)] ?? null;
    if ($kind === null) {
        erp_fail('Unknown schedule: ' . $schedule);
    }
    list($start, $end) = erp_range();
    $sql = $kind === 'customer'
        ? "SELECT acid, name, debit, credit, debit - credit AS balance FROM (
             SELECT a.acid, a.name,
               (SELECT COALESCE(SUM(i.total), 0) FROM sales_invoice i
                WHERE i.compid = a.compid AND i.customer = a.acid AND i.date BETWEEN ? AND ?) AS debit,
               (SELECT COALESCE(SUM(r.amount), 0) FROM receipt r
                WHERE r.compid = a.compid AND r.customer = a.acid AND r.date BETWEEN ? AND ?) AS credit
             FROM account a WHERE a.compid = ? AND a.kind = 'customer') t ORDER BY acid"
        : "SELECT acid, name, debit, credit, credit - debit AS balance FROM (
             SELECT a.acid, a.name,
               (SELECT COALESCE(SUM(p.amount), 0) FROM payment p
                WHERE p.compid = a.compid AND p.supplier = a.acid AND p.date BETWEEN ? AND ?) AS debit,
               (SELECT COALESCE(SUM(b.total), 0) FROM purchase_bill b
                WHERE b.compid = a.compid AND b.supplier = a.acid AND b.date BETWEEN ? AND ?) AS credit
             FROM account a WHERE a.compid = ? AND a.kind = 'supplier') t ORDER BY acid";
    $rows = erp_select($mode, $sql, array($start, $end, $start, $end, ERP_DUES_COMPID));
    return array('status' => 'success', 'schedule' => $schedule, 'data' => $rows);
}
