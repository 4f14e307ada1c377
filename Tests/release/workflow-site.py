#!/usr/bin/env python3
"""The release workflow's Pages site, made by the workflow's own steps, and where apt finds it.

usage: Tests/release/workflow-site.py --debs DIR --pages-url URL --secret-key FILE --out DIR
       Tests/release/workflow-site.py --scripts     (the scripts the emulated job runs)
  --workflow FILE  another workflow file than .github/workflows/release.yml (to see a check fail)

Reads .github/workflows/release.yml and checks, without GitHub:
  1. Permissions: none at the top; each job names its own; pages: write and id-token: write only
     where actions/deploy-pages runs, contents: write only where `gh release` runs, nothing
     else above read.
  2. The key out of the build's reach: the job that builds (scripts/release, in a privileged
     container) names no secret; the job that names the secret builds nothing and runs in no
     privileged container.
  3. safe.directory first: in a job that runs in a container, git is told the checkout is safe
     before any step runs a script of the repository.
  4. The site: the job that uploads the Pages artifact (actions/upload-pages-artifact) is run
     step by step here, its shell steps by bash as GitHub runs them: actions/checkout is a copy
     of this tree, actions/download-artifact `packages` the .debs of --debs, the secret
     RELEASE_GPG_KEY the armored key of --secret-key. The workflow's variable that holds the
     Pages address of a project site (https://OWNER.github.io/REPO for owner/repo) is given
     --pages-url instead, the address where the caller serves the artifact. The artifact is
     copied to --out, to be served at --pages-url as GitHub Pages serves it. Then the
     roundclock.sources in it must name an address under --pages-url whose directory in the
     artifact holds the signed repository (dists/trixie/InRelease, every index by hash, every
     package of the package lists) and the keyring, the job's `url` output must be that
     address, and docs/install.md's stanza must name the same path under
     https://OWNER.github.io/REPOSITORY.
Prints "PASS|FAIL workflow <text>" per check and the address apt uses. Exit status 0 if every
check passed, 1 if one failed (the site is written), 2 if no site was made. Needs python3-yaml.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    print("workflow-site: python3-yaml is missing (apt install python3-yaml)", file=sys.stderr)
    sys.exit(2)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORKFLOW = os.path.join(REPO, ".github/workflows/release.yml")
OWNER, NAME = "owner", "repo"
PAGES_ADDRESS = f"https://{OWNER}.github.io/{NAME}"

failures = 0


def report(ok, text):
    global failures
    print(f"{'PASS' if ok else 'FAIL'} workflow {text}", flush=True)
    if not ok:
        failures += 1
    return ok


def load(path):
    with open(path) as f:
        doc = yaml.safe_load(f)
    # YAML 1.1 reads the key `on` as True
    return doc, doc["jobs"]


def uses(step):
    return step.get("uses", "").split("@")[0]


def job_text(job):
    return yaml.safe_dump(job)


def runs(job, word):
    return any(word in step.get("run", "") for step in job.get("steps", []))


def privileged(job):
    container = job.get("container")
    return isinstance(container, dict) and "--privileged" in str(container.get("options", ""))


def check_permissions(doc, jobs):
    problems = []
    if doc.get("permissions") != {}:
        problems.append(f"top-level permissions {doc.get('permissions')!r}, not {{}}")
    for name, job in jobs.items():
        perms = job.get("permissions")
        if not isinstance(perms, dict):
            problems.append(f"job {name} names no permissions of its own ({perms!r})")
            continue
        deploys = any(uses(s) == "actions/deploy-pages" for s in job.get("steps", []))
        releases = runs(job, "gh release")
        for scope, level in perms.items():
            if level in ("read", "none"):
                continue
            if scope in ("pages", "id-token") and deploys:
                continue
            if scope == "contents" and releases:
                continue
            problems.append(f"job {name}: {scope}: {level}")
    report(not problems, "permissions: " + ("; ".join(problems) if problems else
           "none at the top; pages and id-token written only by the deploy job, contents only by the release job"))


def check_key(jobs):
    problems = []
    builders = [n for n, j in jobs.items() if runs(j, "scripts/release") or runs(j, "scripts/mirror-swift-packages")]
    signers = [n for n, j in jobs.items() if "secrets." in job_text(j)]
    for name in builders:
        if "secrets." in job_text(jobs[name]):
            problems.append(f"job {name} builds and names a secret")
    for name in signers:
        job = jobs[name]
        if privileged(job) or runs(job, "scripts/release") or runs(job, "swift build"):
            problems.append(f"job {name} holds a secret and builds or runs privileged")
    if not builders:
        problems.append("no job runs scripts/release")
    report(not problems, "the key: " + ("; ".join(problems) if problems else
           f"built in {', '.join(builders)} with no secret; the secret only in {', '.join(signers)}"))


def check_safe_directory(jobs):
    problems = []
    for name, job in jobs.items():
        if not job.get("container"):
            continue
        steps = [s.get("run", "") for s in job.get("steps", [])]
        first_script = next((i for i, r in enumerate(steps) if re.search(r"(^|[\s;&|(])scripts/", r)), None)
        if first_script is None or not runs(job, "scripts/release"):
            continue
        safe = next((i for i, r in enumerate(steps) if "safe.directory" in r), None)
        if safe is None or safe > first_script:
            problems.append(f"job {name}: safe.directory {'never set' if safe is None else 'set after a script runs'}")
    report(not problems, "safe.directory: " + ("; ".join(problems) if problems else
           "set before any script runs git in a container"))


class Emulator:
    """Runs one job's steps as GitHub does, on this machine."""

    def __init__(self, doc, job, debs, pages_url, secret, work):
        self.doc, self.job, self.debs, self.pages_url, self.secret, self.work = doc, job, debs, pages_url, secret, work
        self.workspace = os.path.join(work, "workspace")
        self.temp = os.path.join(work, "runner-temp")
        os.makedirs(self.workspace)
        os.makedirs(self.temp)
        self.steps = {}
        self.env = {}
        self.pages_artifact = None
        self.version = subprocess.run(["dpkg-parsechangelog", "-l", os.path.join(REPO, "debian/changelog"), "-SVersion"],
                                      capture_output=True, text=True, check=True).stdout.strip()
        self.pages_variable = None

    def expression(self, expr, env):
        expr = expr.strip()
        github = {"repository_owner": OWNER, "event.repository.name": NAME, "repository": f"{OWNER}/{NAME}",
                  "ref_name": f"v{self.version}", "token": "no-token", "workspace": self.workspace}
        if expr.startswith("github."):
            key = expr[len("github."):]
            if key in github:
                return github[key]
        if expr == "secrets.RELEASE_GPG_KEY":
            return self.secret
        m = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expr)
        if m:
            return self.steps.get(m.group(1), {}).get(m.group(2), "")
        m = re.fullmatch(r"env\.(\w+)", expr)
        if m:
            return env.get(m.group(1), "")
        if expr == "runner.temp":
            return self.temp
        raise SystemExit(f"workflow-site: the emulator does not know the expression ${{{{ {expr} }}}}")

    def evaluate(self, value, env):
        return re.sub(r"\$\{\{(.*?)\}\}", lambda m: self.expression(m.group(1), env), str(value))

    def base_env(self):
        env = {}
        for key, value in (self.doc.get("env") or {}).items():
            env[key] = self.evaluate(value, env)
        # the Pages address of the project site: served by the caller at --pages-url instead
        names = [k for k, v in env.items() if v.rstrip("/") == PAGES_ADDRESS]
        if len(names) != 1:
            raise SystemExit(f"workflow-site: the workflow's env holds the Pages address {PAGES_ADDRESS} in "
                             f"{len(names)} variables ({names}), not in one")
        self.pages_variable = names[0]
        env[names[0]] = self.pages_url
        for key, value in (self.job.get("env") or {}).items():
            env[key] = self.evaluate(value, env)
        return env

    def run(self):
        self.env = self.base_env()
        for index, step in enumerate(self.job.get("steps", [])):
            label = step.get("name") or step.get("uses") or f"step {index + 1}"
            if "if" in step:
                raise SystemExit(f"workflow-site: step '{label}' has an if:, which the emulator does not evaluate")
            if "uses" in step:
                self.action(step)
            else:
                self.shell(step, label)
        return {k: self.evaluate(v, self.env) for k, v in (self.job.get("outputs") or {}).items()}

    def action(self, step):
        name, with_ = uses(step), step.get("with") or {}
        if name == "actions/checkout":
            subprocess.run(["rsync", "-a", "--exclude", ".build*", "--exclude", ".git", f"{REPO}/", f"{self.workspace}/"],
                           check=True)
        elif name == "actions/download-artifact":
            if with_.get("name") != "packages":
                raise SystemExit(f"workflow-site: no artifact {with_.get('name')!r} here (only 'packages')")
            dest = os.path.join(self.workspace, with_.get("path", "."))
            os.makedirs(dest, exist_ok=True)
            for f in sorted(glob.glob(os.path.join(self.debs, "roundclock*.deb")) + glob.glob(os.path.join(self.debs, "SHA256SUMS"))):
                shutil.copy(f, dest)
        elif name == "actions/upload-pages-artifact":
            self.pages_artifact = os.path.join(self.workspace, self.evaluate(with_.get("path", "_site"), self.env))
            if not os.path.isdir(self.pages_artifact):
                raise SystemExit(f"workflow-site: the Pages artifact {with_.get('path')} is no directory")
        elif name == "actions/upload-artifact":
            for pattern in str(self.evaluate(with_.get("path", ""), self.env)).split():
                if not glob.glob(os.path.join(self.workspace, pattern)):
                    raise SystemExit(f"workflow-site: artifact {with_.get('name')}: nothing at {pattern}")
        else:
            raise SystemExit(f"workflow-site: the emulator does not run the action {name}")

    def shell(self, step, label):
        env = dict(self.env)
        for key, value in (step.get("env") or {}).items():
            env[key] = self.evaluate(value, env)
        script = self.evaluate(step["run"], env)
        files = {n: os.path.join(self.temp, n) for n in ("github_env", "github_output")}
        for f in files.values():
            open(f, "w").close()
        process_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.temp, "LANG": "C.UTF-8",
                       "GITHUB_ENV": files["github_env"], "GITHUB_OUTPUT": files["github_output"],
                       "GITHUB_WORKSPACE": self.workspace, "RUNNER_TEMP": self.temp,
                       "GITHUB_REPOSITORY": f"{OWNER}/{NAME}", "GITHUB_REPOSITORY_OWNER": OWNER,
                       "GITHUB_REF_NAME": f"v{self.version}", **env}
        path = os.path.join(self.temp, "step.sh")
        with open(path, "w") as f:
            f.write(script)
        print(f"[workflow-site] step: {label}", flush=True)
        # GitHub's default shell on Linux: bash -e {0}
        done = subprocess.run(["bash", "-e", path], cwd=self.workspace, env=process_env)
        if done.returncode != 0:
            raise SystemExit(f"workflow-site: step '{label}' exited {done.returncode}")
        self.env.update(read_commands(files["github_env"]))
        if "id" in step:
            self.steps[step["id"]] = read_commands(files["github_output"])


def read_commands(path):
    """GitHub's KEY=VALUE and KEY<<DELIMITER lines of GITHUB_ENV and GITHUB_OUTPUT."""
    values, lines = {}, open(path).read().splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.fullmatch(r"([^=<]+)<<(.+)", line)
        if m:
            end = lines.index(m.group(2), i + 1)
            values[m.group(1)] = "\n".join(lines[i + 1:end])
            i = end + 1
            continue
        if "=" in line:
            key, value = line.split("=", 1)
            values[key] = value
        i += 1
    return values


def check_site(site, pages_url, outputs):
    """The .sources in the site names an address under pages_url whose directory holds the repository."""
    problems = []
    sources = glob.glob(os.path.join(site, "**", "roundclock.sources"), recursive=True)
    if len(sources) != 1:
        report(False, f"site: {len(sources)} roundclock.sources in the Pages artifact, not one")
        return None
    stanza = dict(line.split(": ", 1) for line in open(sources[0]).read().splitlines() if ": " in line)
    uri = stanza.get("URIs", "").rstrip("/")
    base = pages_url.rstrip("/")
    if not uri.startswith(base + "/") and uri != base:
        report(False, f"site: roundclock.sources names {uri}, not an address under {base}, where the site is served")
        return None
    rel = uri[len(base):].lstrip("/")
    repo = os.path.join(site, rel)
    suite = stanza.get("Suites", "trixie")
    release = os.path.join(repo, "dists", suite, "Release")
    for f in ("InRelease", "Release", "Release.gpg"):
        if not os.path.isfile(os.path.join(repo, "dists", suite, f)):
            problems.append(f"{uri}/dists/{suite}/{f} is not in the site (at {os.path.relpath(os.path.join(repo, 'dists', suite, f), site)})")
    if not os.path.isfile(os.path.join(repo, "roundclock-archive-keyring.gpg")):
        problems.append(f"{uri}/roundclock-archive-keyring.gpg is not in the site")
    indices = packages = 0
    if os.path.isfile(release):
        text = open(release).read()
        if "\nAcquire-By-Hash: yes\n" not in "\n" + text:
            problems.append("Release has no 'Acquire-By-Hash: yes'")
        # apt asks for each index by the strongest hash listed, and falls back to its plain name
        # (which a cache may serve stale) when that by-hash file is missing: every hash listed
        # needs its copies
        for algorithm, block in re.findall(r"^(MD5Sum|SHA1|SHA256|SHA512):\n((?: .*\n?)*)", text, re.M):
            for line in block.splitlines():
                digest, _, name = line.split()
                by_hash = os.path.join(repo, "dists", suite, os.path.dirname(name), "by-hash", algorithm, digest)
                if not os.path.isfile(by_hash):
                    problems.append(f"no by-hash/{algorithm} copy of {name}")
        block = re.search(r"^SHA256:\n((?: .*\n?)*)", text, re.M)
        for line in (block.group(1).splitlines() if block else []):
            digest, _, name = line.split()
            indices += 1
            if name.endswith("/Packages"):
                for filename in re.findall(r"^Filename: (.*)$", open(os.path.join(repo, "dists", suite, name)).read(), re.M):
                    packages += 1
                    if not os.path.isfile(os.path.join(repo, filename)):
                        problems.append(f"{filename} is not in the site")
        if indices == 0:
            problems.append("Release lists no index")
    if outputs.get("url", "").rstrip("/") != uri:
        problems.append(f"the job's url output {outputs.get('url')!r} is not the stanza's {uri}")
    report(not problems, "site: " + ("; ".join(problems) if problems else
           f"roundclock.sources names {uri}; the site holds it at {rel or '.'}/: InRelease, "
           f"{indices} indices by hash, {packages} packages, the keyring; the environment's URL is the same"))
    return rel


def check_docs(rel):
    docs = open(os.path.join(REPO, "docs/install.md")).read()
    want = "URIs: https://OWNER.github.io/REPOSITORY" + (f"/{rel}" if rel else "")
    names = re.findall(r"^URIs: (.*)$", docs, re.M)
    report(names == [want[len("URIs: "):]], f"docs/install.md's stanza: {names} (the site gives {want[len('URIs: '):]})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--debs")
    parser.add_argument("--pages-url")
    parser.add_argument("--secret-key")
    parser.add_argument("--out")
    parser.add_argument("--scripts", action="store_true")
    parser.add_argument("--workflow", default=WORKFLOW)
    args = parser.parse_args()
    doc, jobs = load(args.workflow)
    pages_jobs = [n for n, j in jobs.items() if any(uses(s) == "actions/upload-pages-artifact" for s in j.get("steps", []))]
    if args.scripts:
        for name in pages_jobs:
            for script in sorted(set(re.findall(r"scripts/[a-z0-9.-]+", job_text(jobs[name])))):
                print(script)
        return 0
    if not (args.debs and args.pages_url and args.secret_key and args.out):
        parser.error("--debs, --pages-url, --secret-key and --out are needed")
    check_permissions(doc, jobs)
    check_key(jobs)
    check_safe_directory(jobs)
    if len(pages_jobs) != 1:
        report(False, f"site: {len(pages_jobs)} jobs upload a Pages artifact, not one")
        return 2
    name = pages_jobs[0]
    job = jobs[name]
    if privileged(job) or runs(job, "scripts/release"):
        report(False, f"site: job {name}, which uploads the Pages artifact, builds or runs privileged: not run here")
        return 2
    with tempfile.TemporaryDirectory(prefix="workflow-site.") as work:
        emulator = Emulator(doc, job, os.path.abspath(args.debs), args.pages_url, open(args.secret_key).read(), work)
        try:
            outputs = emulator.run()
        except SystemExit as stop:
            report(False, f"site: job {name} did not run: {stop}")
            return 2
        finally:
            # the gpg-agent that a step's gpg started in the runner's temporary directory
            if emulator.env.get("GNUPGHOME"):
                subprocess.run(["gpgconf", "--kill", "all"], env={**os.environ, "GNUPGHOME": emulator.env["GNUPGHOME"]})
        if emulator.pages_artifact is None:
            report(False, f"site: job {name} uploads no Pages artifact")
            return 2
        if os.path.exists(args.out):
            shutil.rmtree(args.out)
        shutil.copytree(emulator.pages_artifact, args.out, symlinks=False)
    print(f"[workflow-site] job {name}: the Pages artifact ({os.path.relpath(emulator.pages_artifact, emulator.workspace)}/) "
          f"is served at {args.pages_url} in place of {PAGES_ADDRESS} (the workflow's {emulator.pages_variable})")
    rel = check_site(args.out, args.pages_url, outputs)
    if rel is not None:
        check_docs(rel)
        print(f"[workflow-site] apt's address: {args.pages_url.rstrip('/')}/{rel}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
