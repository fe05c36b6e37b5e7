<?php
// Shared code of the PHP test service (tests/php/README.md), written the
// way a typical PHP ERP is: mysqli with its defaults, json_encode with its
// default flags, errors answered as HTTP 200 {"status":"error"}.
//
// Two code paths, chosen by the project name:
//   modern: prepared statements through mysqlnd, get_result()->fetch_all()
//           (INT native, DECIMAL/DATE/DATETIME strings);
//   legacy: mysqli_query() and mysqli_fetch_assoc() on SQL built by string
//           concatenation (every value a string, NULL null).

// The only token this test service accepts. Not a secret.
const ERP_TOKEN = 'php-test-token-not-secret';

// The projects (and project folders of the dues query) and their code paths.
const ERP_PROJECTS = ['modern' => 'modern', 'legacy' => 'legacy'];

// The current books, which the dues query answers from.
const ERP_DUES_COMPID = 1;
const ERP_DUES_YEARID = 2025;

function erp_db()
{
    static $db = null;
    if ($db === null) {
        $socket = getenv('ERPDATA_PHP_DB_SOCKET');
        try {
            $db = new mysqli('localhost', 'root', '', 'erpdata_php', 0, $socket === false ? null : $socket);
        } catch (mysqli_sql_exception $e) {
            erp_fail('Database connection failed');
        }
        $db->set_charset('utf8mb4');
    }
    return $db;
}

// Ends the request with the service's error envelope (HTTP 200).
function erp_fail($message)
{
    echo json_encode(array('status' => 'error', 'message' => $message));
    exit;
}

// A request parameter from $_REQUEST (GET and POST form); a blank one is missing.
function erp_param($name)
{
    if (!isset($_REQUEST[$name]) || !is_string($_REQUEST[$name]) || trim($_REQUEST[$name]) === '') {
        erp_fail('Missing parameter: ' . $name);
    }
    return trim($_REQUEST[$name]);
}

function erp_mode($project, $what)
{
    if (!array_key_exists($project, ERP_PROJECTS)) {
        erp_fail($what . ': ' . $project);
    }
    return ERP_PROJECTS[$project];
}

// The modern path: a prepared statement, rows as mysqlnd types them.
function erp_rows_prepared($sql, $types = '', array $params = array())
{
    $stmt = erp_db()->prepare($sql);
    if ($types !== '') {
        $stmt->bind_param($types, ...$params);
    }
    $stmt->execute();
    return $stmt->get_result()->fetch_all(MYSQLI_ASSOC);
}

// The legacy path: SQL text in, every value a string (NULL stays null).
function erp_rows_query($sql)
{
    $result = mysqli_query(erp_db(), $sql);
    $rows = array();
    while ($row = mysqli_fetch_assoc($result)) {
        $rows[] = $row;
    }
    mysqli_free_result($result);
    return $rows;
}

function erp_quote($value)
{
    return "'" . mysqli_real_escape_string(erp_db(), $value) . "'";
}
