#!/usr/bin/env python3
"""Run named `run:` steps of a GitHub Actions workflow file, as the runner would.

    gha_steps.py WORKFLOW JOB --checkout DIR --log FILE [--input K=V]... [--env K=V]...
                 STEP-NAME...

The steps' scripts are taken from the workflow file (the oracle) and run in order with
`bash --noprofile --norc -eo pipefail` (GitHub's `shell: bash`) in the checkout, with
GITHUB_OUTPUT, GITHUB_PATH and GITHUB_ENV files whose contents reach the later steps as
GitHub passes them: `steps.<id>.outputs.<name>`, PATH entries in front, variables.
Expressions substituted: `${{ inputs.NAME }}` (from --input; an input not given is '',
as GitHub gives an unset string input without default) and
`${{ steps.ID.outputs.NAME }}`; any other expression in a step run is an error, so a
changed workflow fails here rather than run something else. The job's `env:` values are
expressions too: each must be given with --env. A step's `if:` is not evaluated (the
caller picks the steps); the first failing step stops the run: exit 1, its name on
stderr. The steps' output goes to --log.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import yaml

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def substitute(text, inputs, outputs, where):
    def one(m):
        e = m.group(1)
        k = re.fullmatch(r"inputs\.([A-Za-z0-9_-]+)", e)
        if k:
            return inputs.get(k.group(1), "")
        k = re.fullmatch(r"steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)", e)
        if k:
            return outputs.get(k.group(1), {}).get(k.group(2), "")
        sys.exit("gha_steps: %s: expression '%s' is not one this runner evaluates" % (where, e))
    return EXPR.sub(one, text)


def read_kv_file(path):
    """GitHub's environment-file syntax: NAME=VALUE lines and NAME<<DELIM heredocs."""
    out = {}
    with open(path) as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            val = []
            while i < len(lines) and lines[i] != delim:
                val.append(lines[i])
                i += 1
            i += 1
            out[name] = "\n".join(val)
        elif "=" in line:
            name, val = line.split("=", 1)
            out[name] = val
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("workflow")
    p.add_argument("job")
    p.add_argument("steps", nargs="+")
    p.add_argument("--checkout", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--input", action="append", default=[])
    p.add_argument("--env", action="append", default=[])
    a = p.parse_args()
    inputs = dict(kv.split("=", 1) for kv in a.input)
    given_env = dict(kv.split("=", 1) for kv in a.env)
    with open(a.workflow) as f:
        wf = yaml.safe_load(f)
    job = wf["jobs"][a.job]
    env = dict(os.environ)
    for k in job.get("env", {}):
        if k not in given_env:
            sys.exit("gha_steps: the job's env %s is an expression: give it with --env" % k)
    env.update(given_env)
    shell = (job.get("defaults", {}).get("run", {}).get("shell"))
    if shell != "bash":
        sys.exit("gha_steps: the job's shell is %r, not bash" % shell)
    by_name = {s.get("name"): s for s in job["steps"]}
    order = [s.get("name") for s in job["steps"]]
    outputs = {}
    tmp = tempfile.mkdtemp(prefix="gha-")
    last = -1
    with open(a.log, "a") as log:
        for name in a.steps:
            step = by_name.get(name)
            if step is None or "run" not in step:
                sys.exit("gha_steps: the job has no run step named '%s'" % name)
            if order.index(name) < last:
                sys.exit("gha_steps: step '%s' comes before the previous one" % name)
            last = order.index(name)
            script = substitute(step["run"], inputs, outputs, name)
            files = {}
            for var in ("GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_ENV"):
                files[var] = os.path.join(tmp, var)
                open(files[var], "w").close()
                env[var] = files[var]
            env.update({k: substitute(str(v), inputs, outputs, name)
                        for k, v in step.get("env", {}).items()})
            log.write("##[step] %s\n%s\n" % (name, script))
            log.flush()
            start = time.monotonic()
            rc = subprocess.call(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                                 cwd=a.checkout, env=env, stdout=log, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL)
            log.write("##[time] %.1f s\n" % (time.monotonic() - start))
            if rc != 0:
                log.write("##[error] step '%s' exited %d\n" % (name, rc))
                print("gha_steps: step '%s' exited %d" % (name, rc), file=sys.stderr)
                return 1
            if step.get("id"):
                outputs[step["id"]] = read_kv_file(files["GITHUB_OUTPUT"])
            with open(files["GITHUB_PATH"]) as f:
                for d in f.read().split("\n"):
                    if d:
                        env["PATH"] = d + os.pathsep + env["PATH"]
            env.update(read_kv_file(files["GITHUB_ENV"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
