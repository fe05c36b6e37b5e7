// Runs tests/vectors/config.json through ErpClient, as a caller meets it:
// the settings given as options, the variables in process.env. The
// variable of a setting given must not even be read (a runtime may ask
// leave to read one), which a process.env that records its reads shows.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ErpClient } from "../../js/src/index.js";
import { checkError, load } from "./vectors.js";

const CASES = load("config");

const OPTIONS = {
  base_url: ["baseUrl", "ERPDATA_BASE_URL"],
  project: ["project", "ERPDATA_PROJECT"],
  project_folder: ["projectFolder", "ERPDATA_PROJECT_FOLDER"],
  access_token: ["accessToken", "ERPDATA_ACCESS_TOKEN"],
  company_id: ["companyId", "ERPDATA_COMPANY_ID"],
  year_id: ["yearId", "ERPDATA_YEAR_ID"],
  allow_insecure_http: ["allowInsecureHttp"],
  ajax_token: ["ajaxToken"],
};

/** `fn` with process.env holding only `vars`, and the names read from it. */
function withEnv(vars, fn) {
  const saved = process.env;
  const read = [];
  process.env = new Proxy(
    { ...vars },
    {
      get(target, name) {
        read.push(name);
        return target[name];
      },
    },
  );
  try {
    return [fn(), read];
  } catch (err) {
    return [err, read];
  } finally {
    process.env = saved;
  }
}

test("config vectors exist", () => {
  assert.ok(CASES.length > 0);
});

for (const c of CASES) {
  test(`config: ${c.name}`, () => {
    const options = {};
    for (const [key, value] of Object.entries(c.settings)) {
      assert.ok(key in OPTIONS, `unknown setting ${key}`);
      options[OPTIONS[key][0]] = value;
    }
    const [made, read] = withEnv(c.vars, () => new ErpClient(options));
    for (const key of Object.keys(c.settings)) {
      const variable = OPTIONS[key][1];
      if (variable) assert.ok(!read.includes(variable), `read ${variable} though ${key} was given`);
    }
    if (c.expect_error) {
      assert.ok(!(made instanceof ErpClient), "expected an error");
      checkError(made, c.expect_error);
      return;
    }
    assert.ok(made instanceof ErpClient, String(made));
    const shown = made.toJSON();
    assert.deepEqual(
      {
        base_url: shown.baseUrl,
        project: shown.project,
        project_folder: shown.projectFolder,
        company_id: shown.companyId,
        year_id: shown.yearId,
        has_access_token: shown.accessToken === "[REDACTED]",
      },
      c.expect,
    );
  });
}
