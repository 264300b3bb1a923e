#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "cli/cli.h"

/*
 * The one command table: name, function, the setup it needs, its forms, the summary `help`
 * lists, and what `COMMAND --help` and the man page say of it. The synopses come from each
 * command's option table (cli/help.c), so they cannot leave an option out.
 */
const struct cli_command cli_commands[] = {
    {
	.name = "help",
	.fn = cmd_help,
	.forms = {{NULL, NULL, "[COMMAND]"}},
	.summary = "show the commands, or one command's help",
	.description = "Without COMMAND, lists the commands. With one, prints its help, as "
		       "'benchline COMMAND --help' does: the usage of each form, what it does, "
		       "every option, its exit statuses and examples. Needs no database.",
	.exits = "0 the help was printed\n2 no such command",
	.examples = {"List the commands:", "benchline help",
		     "Show how to gate a pull request:", "benchline help gate"},
    },
    {
	.name = "version",
	.fn = cmd_version,
	.forms = {{NULL, NULL, ""}},
	.summary = "print benchline's version",
	.description = "Prints 'benchline VERSION', as 'benchline --version' does. Needs no "
		       "database.",
	.exits = "0 always",
	.examples = {"Print the version:", "benchline version",
		     "The same, as a global option:", "benchline --version"},
    },
    {
	.name = "init",
	.fn = cmd_init,
	.needs = NEED_DB_CREATE,
	.forms = {{NULL, NULL, ""}},
	.summary = "create or migrate the database (--db, $BENCHLINE_DB, ./benchline.db)",
	.description =
	    "Creates the database when it is missing and applies every migration it lacks, then "
	    "prints its schema version. Commands that write records create the database "
	    "themselves; commands that only read refuse a missing one, so a typo in --db never "
	    "creates an empty database.",
	.exits = "0 the database is at the current schema\n2 it cannot be created or migrated "
		 "(not a database, newer than this binary)",
	.examples = {"Create ./benchline.db:", "benchline init",
		     "Create or migrate another database:", "benchline --db /srv/bench.db init"},
    },
    {
	.name = "check",
	.fn = cmd_check,
	.needs = NEED_DB,
	.forms = {{NULL, NULL, ""}},
	.summary = "verify the database and the invariants of its history",
	.description =
	    "Runs the database's own integrity check (SQLite's quick_check; PostgreSQL checks its "
	    "pages as it reads them) and verifies what every history keeps: each standing record "
	    "has its run, measured on the record's key; each metric, tag and Suspect has its run; "
	    "each run has its primary metric; each line has its start run. Prints one line per "
	    "problem, or one line of counts when all hold.",
	.exits = "0 every check holds\n1 a check failed (each is printed)\n2 the database "
		 "cannot be read",
	.examples = {"Check ./benchline.db:", "benchline check", "Check a PostgreSQL database:",
		     "benchline --db postgresql://bench@db.example/bench check"},
    },
    {
	.name = "migrate",
	.fn = cmd_migrate,
	.forms = {{NULL, "--from DB --to DB [--json]", ""}},
	.summary = "copy a whole history between SQLite and PostgreSQL",
	.description =
	    "Copies every table of --from into --to (a file or a postgresql:// URL, either way), "
	    "in one transaction on --to, which is created or migrated first and must hold no "
	    "history yet. Every run, sample, tag, line, Suspect, alert and Regression is copied "
	    "with its id. Before --to commits, each table's rows are counted and hashed on both "
	    "sides; any difference rolls the copy back. Progress goes to stderr, a table at a "
	    "time; --json prints each table's count and checksum.",
	.exits = "0 copied, counts and checksums agree\n2 nothing was stored (a database cannot "
		 "be opened, --to already holds a history, or the copy differs)",
	.examples = {"Move a history onto PostgreSQL:",
		     "benchline migrate --from bench.db --to postgresql://bench@db.example/bench",
		     "And back into a file:",
		     "benchline migrate --from postgresql://bench@db.example/bench --to copy.db"},
    },
    /* The intake commands open (and create) the database themselves: with --server they
     * push and need none. */
    {
	.name = "ingest",
	.fn = cmd_ingest,
	.forms = {{NULL, NULL, "FILE..."}},
	.summary = "store benchmark results (any format), one transaction per file",
	.description =
	    "Stores the results in each FILE ('-' reads stdin; a directory is a criterion "
	    "target/criterion tree), one transaction per file: a file with any error is reported "
	    "as FILE:LINE:COLUMN: message and nothing from it is stored, while the other files "
	    "still go in. The format is decided from the content unless --format names it; "
	    "--machine, --harness-version and --config fill what a foreign format lacks, and "
	    "--repo gives records the commit, source hash and dirty state of DIR's HEAD. Prints "
	    "one line per record: its key and whether it stands, was superseded by a quieter run, "
	    "or was already stored. With --server the records are pushed to that server, one body "
	    "per file, and no database is opened.",
	.exits = "0 every file was stored (or was already)\n2 a file did not parse or could not "
		 "be stored, a body was refused, or bad usage\n3 nothing was refused, but a body "
		 "waits in the spool",
	.examples = {"Store a file of native records:", "benchline ingest run.json",
		     "Store Google Benchmark output, with what the format lacks:",
		     "benchline ingest --machine ci-box --harness-version 1 --repo . bench.json"},
    },
    {
	.name = "run",
	.fn = cmd_run,
	.forms = {{NULL, NULL, "-- COMMAND..."}},
	.summary = "preflight, run a benchmark command, parse its output, tag and store",
	.description =
	    "Checks that the machine is quiet (preflight), runs COMMAND, parses its standard "
	    "output (or the file or directory --results names) and stores the records as ingest "
	    "does, each carrying the preflight object and the command's CPU time and peak RSS. A "
	    "busy machine's runs are stored tagged preflight. The command's standard error passes "
	    "through as it runs, and a summary line ends the run; a command that fails or cannot "
	    "be started stores nothing. --repo defaults to "
	    "the current directory when it is a git checkout. With --server the run's records are "
	    "pushed as one body.",
	.exits = "0 the records were stored\n2 the command failed, its output did not parse, or "
		 "bad usage\n3 the body waits in the spool",
	.examples = {"Run a Google Benchmark binary and store what it measured:",
		     "benchline run --machine ci-box --harness-version 1 --format gbench -- "
		     "./my_bench --benchmark_format=json",
		     "Run a script that prints native records, without a preflight:",
		     "benchline run --no-preflight -- ./bench.sh"},
    },
    {
	.name = "import-baseline",
	.fn = cmd_import_baseline,
	.forms = {{NULL, NULL, "FILE..."}},
	.summary = "store historical records as imported Baselines (each starts a line)",
	.description =
	    "Stores historical results as imported Baselines: each record starts a line on its "
	    "Series, so detection never compares it with what came before. It takes the same "
	    "formats and options as ingest, --server included; importing the same file again "
	    "stores nothing new.",
	.exits = "0 every file was stored\n2 a file did not parse or could not be stored, or bad "
		 "usage\n3 a body waits in the spool",
	.examples =
	    {"Import last year's results as Baselines:",
	     "benchline import-baseline --repo . old-results.json",
	     "Import hyperfine output from another machine:",
	     "benchline import-baseline --machine lab-1 --harness-version 3 hyperfine.json"},
    },
    {
	.name = "import",
	.fn = cmd_import,
	.forms = {{NULL, "--from TOOL", "DIR|FILE"}},
	.summary = "bring in another tool's history: asv, asv-html, gab or bencher",
	.description =
	    "Reads the history another benchmarking tool kept and stores each of its results as a "
	    "record at its own commit, so a team switches to benchline without losing its past: "
	    "--from asv reads asv's results directory (benchmarks.json and a directory per "
	    "machine), asv-html a site asv published (index.json and graphs/), gab "
	    "github-action-benchmark's data.js, bencher Bencher's perf JSON. Everything is stored "
	    "in one transaction, or nothing; importing the same history again stores nothing new. "
	    "--repo computes each record's source hash from its commit in DIR. Progress goes to "
	    "stderr; one line at the end says what was stored, what was already there and what "
	    "was skipped and why.",
	.exits = "0 the history was stored (or was already)\n2 nothing was stored: the history "
		 "did not read (the error says where) or bad usage",
	.examples = {"Bring in a published asv site:", "benchline import --from asv-html gh-pages/",
		     "Bring in github-action-benchmark's history, on the machine the sweep uses:",
		     "benchline import --from gab --machine ci-box --repo . dev/bench/data.js"},
    },
    {
	.name = "push",
	.fn = cmd_push,
	.forms = {{NULL, NULL, "[FILE...]"}},
	.summary = "send native record files to a server, after what waits in the spool",
	.description =
	    "Sends files of native records to a benchline server as they are, unparsed (at most "
	    "16 MiB each), after pushing what waits in the spool, oldest body first. The server "
	    "is --server, else $BENCHLINE_SERVER, else the benchline.json --repo names. With no "
	    "FILE, or as 'benchline push --spool' with no directory, it pushes only the spool. "
	    "A body that gets no answer is retried, then kept in the spool for the next command.",
	.exits = "0 every body was acknowledged\n2 a body was refused, or bad usage\n3 nothing "
		 "was refused, but a body waits in the spool",
	.examples = {"Push what waits in the spool:",
		     "benchline push --spool --server http://bench.example:8080 --token-file "
		     "~/.benchline-token",
		     "Push a file of records:",
		     "benchline push --server http://bench.example:8080 --token-file "
		     "~/.benchline-token run.json"},
    },
    {
	.name = "records",
	.fn = cmd_records,
	.needs = NEED_DB,
	.forms = {{NULL, "[--json] [--machine] [--benchmark] [--all]", ""},
		  {NULL, "--why [--repo] [--json]", "ID..."}},
	.summary = "list standing records (every run with --all), or why runs are tagged",
	.description =
	    "Lists the standing records, one per key, or with --all every run, in Series order: "
	    "id, machine, benchmark, config, source hash, harness version, place on main, commit, "
	    "the primary metric and its value in the unit its size calls for (one per Series), "
	    "and the tags; columns are sized to their content. --json prints one JSON array with "
	    "every field and every metric. --why ID... explains each run's tags from its stored "
	    "figures (its p95/median against the limit of --repo's benchline.json, else 1.06; the "
	    "run that holds its key and why).",
	.exits = "0 the records were listed\n2 no database, no such run, or bad usage",
	.examples = {"List the standing records:", "benchline records",
		     "Why run 812 is off its Series:", "benchline records --why 812"},
    },
    {
	.name = "series",
	.fn = cmd_series,
	.needs = NEED_DB,
	.forms = {{NULL, NULL, ""}},
	.summary = "list every Series: machine, benchmark, config, metric",
	.description =
	    "Lists every Series, a (machine, benchmark, config, metric) over the standing records "
	    "that carry no tag, with its record count, its lines (a line starts at the first "
	    "record, a harness-version change, a content-hash change, or an imported Baseline) "
	    "and its last value. The record count says how many runs of the Series are left "
	    "out because they carry a tag, and a second table lists the Series whose every run "
	    "is tagged. --json prints one JSON array, with the open Suspects and the Regressions "
	    "of each Series.",
	.exits = "0 the Series were listed\n2 no database, or bad usage",
	.examples = {"List every Series:", "benchline series",
		     "The Series of one benchmark, as JSON:",
		     "benchline series --benchmark town --json"},
    },
    {
	.name = "detect",
	.fn = cmd_detect,
	.needs = NEED_DB,
	.forms = {{NULL, NULL, ""}},
	.summary = "find Suspects: records that step out of their line's band",
	.description =
	    "Finds the Suspects: records whose median steps out of the band of the records before "
	    "them on their line. Every line and Suspect is stored in one transaction, and only the "
	    "lines whose records changed since the last detect are judged again, so running it "
	    "twice changes nothing. Every timed metric is judged unless --repo names a "
	    "benchline.json whose metrics lists the judged ones. Prints each new Suspect, then a "
	    "summary.",
	.exits = "0 detection ran (finding Suspects is not an error)\n2 no database, an unreadable "
		 "benchline.json, or bad usage",
	.examples = {"Judge what changed since the last detect:", "benchline detect",
		     "Judge every Series again, with the repository's metrics:",
		     "benchline detect --all --repo ."},
    },
    {
	.name = "suspects",
	.fn = cmd_suspects,
	.needs = NEED_DB,
	.forms = {{NULL, "[--json]", ""}, {"ignore", "--why", "ALERT"}},
	.summary = "list the Suspects detect found, in Series order",
	.description =
	    "Lists the Suspects detect found, in Series order: id, state, side (slower or faster "
	    "in the metric's direction), shift from the band's center, machine, benchmark, config, "
	    "metric, commit and place on main. --json prints one JSON array with the band of each. "
	    "'suspects ignore --why TEXT ALERT' sets an alert and its Suspects ignored for good "
	    "(later detects keep it; confirm and triage pass it by), recorded in the audit table "
	    "with who, when and why.",
	.exits = "0 the Suspects were listed, or the alert ignored\n2 no database, no such alert, "
		 "or bad usage",
	.examples = {"List the Suspects:", "benchline suspects",
		     "Ignore alert 3, a known effect of a compiler upgrade:",
		     "benchline suspects ignore --why 'compiler upgrade, expected' 3"},
    },
    {
	.name = "retag",
	.fn = cmd_retag,
	.needs = NEED_DB,
	.forms = {{NULL, NULL, ""}},
	.summary = "apply the current tag rules and the key rule to every stored run again",
	.description =
	    "Decides every stored run's tags again from its stored JSON with the settings of "
	    "--repo's benchline.json (quiet.max_p95_ratio, quiet.min_samples, machines), then "
	    "replays the key rule over each key's runs in the order they were stored: the database "
	    "then holds what a fresh one would after ingesting the same runs with those settings. "
	    "Prints one summary line; --dry-run changes nothing. The next detect sees the changes.",
	.exits = "0 done\n2 no database, a bad benchline.json, or bad usage",
	.examples = {"After raising quiet.min_samples in benchline.json:",
		     "benchline retag --repo .",
		     "See what would change:", "benchline retag --repo . --dry-run"},
    },
    {
	.name = "rm",
	.fn = cmd_rm,
	.needs = NEED_DB,
	.forms = {{NULL, "[--dry-run] [--json] --why", "ID..."},
		  {NULL, "[--dry-run] [--json] --why [--machine] [--benchmark] [--commit]", ""}},
	.summary = "remove runs (recorded in the audit table with who, when and why)",
	.description =
	    "Removes runs by id, or every run matching --machine, --benchmark and --commit (a "
	    "prefix), in one transaction: their metrics, tags and Suspects go with them, a key "
	    "whose standing run went is taken by the run the key rule picks among those left, and "
	    "the next detect reads every Series again. Each removed run is kept whole in the audit "
	    "(removed_runs), so ingest can take it back. --dry-run lists what would go.",
	.exits =
	    "0 the runs were removed (or listed)\n2 no such run, nothing matched, or bad usage",
	.examples = {"Remove two runs measured on a broken machine:",
		     "benchline rm --why 'thermal throttling' 812 813",
		     "See what a filter would remove:",
		     "benchline rm --dry-run --why test --machine old-runner"},
    },
    {
	.name = "alerts",
	.fn = cmd_alerts,
	.needs = NEED_DB,
	.forms = {{NULL, NULL, ""}},
	.summary = "list the alerts: Suspects grouped into what confirm measures",
	.description =
	    "Lists the alerts oldest first: the Suspects of one machine at one commit and side, "
	    "grouped into what confirm measures once, with the reference commit, how many Series "
	    "they are on, whether that is run-wide, and confirm's outcome. detect forms and "
	    "updates them.",
	.exits = "0 the alerts were listed\n2 no database, an unknown state, or bad usage",
	.examples = {"List every alert:", "benchline alerts",
		     "The open alerts of one machine, as JSON:",
		     "benchline alerts --machine ci-box --state open --json"},
    },
    {
	.name = "sweep",
	.fn = cmd_sweep,
	.forms = {{NULL, NULL, ""}},
	.summary = "the nightly job: build, run and store main's commits not measured yet, then "
		   "detect",
	.description =
	    "The nightly job: syncs main's history, picks main's newest --last N distinct sources "
	    "(default 1) or every one after --since REV, drops those this machine already has a "
	    "clean record of, and builds and runs each left in a worktree with benchline.json's "
	    "bench settings, storing its records. Then detect, and with --confirm, confirm for "
	    "this machine (its open alerts; with --pending its pending ones too). A commit that "
	    "cannot be built is reported and skipped. Progress goes "
	    "to stderr, a line per commit and a summary line. With --server the records are "
	    "pushed, the server detects, and --confirm confirms through it.",
	.exits = "0 every commit picked was measured or found unbuildable\n2 an error, or bad "
		 "usage\n3 bodies wait in the spool",
	.examples = {"Measure main's newest source and confirm what it finds:",
		     "benchline sweep --repo . --confirm",
		     "Measure the last 5 sources, pushing to a server:",
		     "benchline sweep --last 5 --server http://bench.example:8080 --token-file "
		     "~/.benchline-token"},
    },
    {
	.name = "gate",
	.fn = cmd_gate, /* opens the database itself: --live needs none */
	.forms = {{NULL,
		   "[--repo] [--head] [--base] [--live] [--allow-dirty] [--settle] [--undecided] "
		   "[--limit] [--override] [--exclude] [--ratchet] [--json] [--markdown] "
		   "[--base-url]",
		   ""},
		  {"accept",
		   "--justification [--headroom] [--only] [--repo] [--head] [--base] [--limit] "
		   "[--override] [--exclude]",
		   ""}},
	.summary = "pass or fail for a pull request: did it make anything slower?",
	.description =
	    "Compares the records of a pull request's head with those of its merge base with the "
	    "base and says, per metric, whether it is slower beyond its limit; with --live both "
	    "are built and measured now, interleaved in worktrees, with no database. An "
	    "UNDECIDED row (its interval straddles the limit: measured too loosely to tell) "
	    "passes unless --undecided fail; --settle measures the stored FAIL and UNDECIDED "
	    "rows again now, as --live does, and their live verdict replaces the stored one. It "
	    "prints a table and writes a JSON report and a Markdown comment when asked. 'gate "
	    "accept' records a justified shift in the lock file of the working copy, so the next "
	    "gate passes it.",
	.exits =
	    "0 pass, or nothing to compare\n1 a metric is slower than its limit (or undecided, "
	    "under --undecided fail)\n2 an error, or bad usage\n3 accept: a named judged "
	    "metric was skipped, or a name matched none\n4 no verdict is possible (no records to "
	    "compare)",
	.examples = {"Gate the checked-out branch against main, writing a comment:",
		     "benchline gate --repo . --json gate.json --markdown gate.md",
		     "Measure again now what the stored records could not settle, before failing:",
		     "benchline gate --repo . --settle --undecided fail",
		     "Accept the shift of one benchmark, with a reason:",
		     "benchline gate accept --justification 'the new parser checks more' --only "
		     "parse_json"},
    },
    {
	.name = "rebench",
	.fn = cmd_rebench,
	.forms = {{NULL, NULL, "A B"}},
	.summary = "measure B against A now, interleaved: is B slower?",
	.description =
	    "Measures revision B against revision A now, on this machine: both are checked out "
	    "in their worktrees and built with benchline.json's bench.build, and unless their "
	    "bench.artifacts are byte-identical, samples of bench.run are taken in pairs, the "
	    "order alternating, until every metric's 99% interval decides. A metric that looks "
	    "slower is measured again and is slower only when three measurements agree. Progress "
	    "goes to stderr (the pairs done of the most, and the time that may take at the pace "
	    "so far); stdout gets the table of metrics, or with --json the report.",
	.exits = "0 B is not slower (same, faster, undecided, or identical artifacts)\n1 B is "
		 "slower\n2 an error, or bad usage\n125 a side cannot be built",
	.examples = {"Is the branch slower than main?", "benchline rebench main my-branch",
		     "Only the parse benchmarks, with a 5% limit, as JSON:",
		     "benchline rebench --benchmark 'parse*' --limit 1.05 --json HEAD~1 HEAD"},
    },
    {
	.name = "bisect",
	.fn = cmd_bisect,
	.forms = {{NULL,
		   "[--repo] --good --bad --benchmark [--metric] [--limit] [--machine] "
		   "[--no-store] [--json]",
		   ""}},
	.summary = "find the first commit between two that made a benchmark slower",
	.description =
	    "Finds the first commit after --good on --bad's first-parent history whose source "
	    "makes the benchmark slower: commits are collapsed to their distinct sources, bad is "
	    "measured against good first, then a binary search measures each probe against good, "
	    "skipping the ones that cannot be built or stay undecided. A pinned commit is stored "
	    "as a Regression when the database exists (not with --no-store). Stdout gets the probe "
	    "log and the pinned commit, or with --json the report.",
	.exits = "0 a commit was pinned\n1 bad is not slower than good (not reproduced)\n2 an "
		 "error, or bad usage\n3 inconclusive: skips left a range of commits\n125 good "
		 "itself cannot be built",
	.examples = {"Find what made parse_json slower since v1.0:",
		     "benchline bisect --good v1.0 --bad main --benchmark parse_json",
		     "Judge one metric only, without storing a Regression:",
		     "benchline bisect --good HEAD~20 --bad HEAD --benchmark loop --metric latency "
		     "--no-store"},
    },
    {
	.name = "confirm",
	.fn = cmd_confirm, /* opens the database itself: --server needs none */
	.forms = {{NULL, NULL, "[ALERT...]"}},
	.summary = "re-bench open slower alerts and bisect the ones that hold into Regressions",
	.description =
	    "Takes up every open slower alert of this machine that no confirm has taken up yet "
	    "(with --pending the pending ones too, whose step has not yet been followed by "
	    "quiet.transient_records records), or the alerts named by id, pending or not: "
	    "re-benches each alert's commit against its reference commit, clears it when none of "
	    "its Series is slower, and otherwise confirms it and bisects each slower Series, "
	    "storing every pinned commit as a Regression. Only the alert's own Series (its "
	    "benchmarks, configs and judged metrics) decide how long it measures; the other "
	    "metrics are measured and reported, never waited for. Progress shows the pairs done "
	    "of the most and the time that may take. Each outcome is stored, so running it again "
	    "measures nothing. With --server the alerts are a server's, and the outcomes are "
	    "posted back to it.",
	.exits = "0 every alert got an outcome (finding a Regression is one)\n2 an error (no such "
		 "alert, the database, a repository or bench command that fails), or bad usage",
	.examples = {"Confirm this machine's open alerts:", "benchline confirm --repo .",
		     "Confirm alert 7 only, printing the outcome as JSON:",
		     "benchline confirm --json 7",
		     "The pending alerts too, without waiting for their followers:",
		     "benchline confirm --repo . --pending"},
    },
    {
	.name = "regressions",
	.fn = cmd_regressions,
	.needs = NEED_DB,
	.forms = {{NULL, NULL, ""}},
	.summary = "list the Regressions bisection pinned",
	.description =
	    "Lists the Regressions bisection stored, oldest first: id, machine, benchmark, config, "
	    "metric, the pinned commit and its pull request, the delta with its 99% interval, and "
	    "where triage filed its alert. --json prints one JSON array with each probe log.",
	.exits = "0 the Regressions were listed\n2 no database, or bad usage",
	.examples = {"List the Regressions:", "benchline regressions",
		     "The same as JSON:", "benchline regressions --json"},
    },
    {
	.name = "triage",
	.fn = cmd_triage,
	.needs = NEED_DB,
	.forms = {{NULL, "[--json] [--markdown] [--base-url]", ""}, {NULL, "--mark-filed", ""}},
	.summary = "one issue per confirmed alert not yet filed, for a bot to file",
	.description =
	    "Writes one needs-triage issue per confirmed alert that holds a Regression and has "
	    "not been filed, oldest first, for a bot to file: a title naming the largest "
	    "Regression, a Markdown body with every Regression and its probe log, and the labels. "
	    "By default one line per issue; --markdown prints each issue, --json an array. "
	    "--mark-filed ID=URL records where an alert's issue was filed, so it is never listed "
	    "again.",
	.exits = "0 the issues were printed, or the alerts marked\n2 an unknown alert, an "
		 "argument that is not ID=URL, or bad usage",
	.examples = {"Print each issue as Markdown, with links to the charts:",
		     "benchline triage --markdown --base-url https://bench.example",
		     "Record where alert 3's issue was filed:",
		     "benchline triage --mark-filed 3=https://github.com/o/r/issues/41"},
    },
    {
	.name = "hash",
	.fn = cmd_hash,
	.forms = {{NULL, NULL, "[REV...]"}},
	.summary = "print the source hash of revisions (default HEAD)",
	.description =
	    "Prints SOURCE_HASH COMMIT for each revision (default HEAD), both 40 hex digits. The "
	    "source hash is the git tree of just the measured paths of benchline.json, so a "
	    "commit that touches only unmeasured paths keeps it. Needs no database and never "
	    "writes to the repository.",
	.exits = "0 every revision was hashed\n2 a revision that does not resolve, a broken "
		 "repository, or bad usage",
	.examples = {"The source hash of HEAD:", "benchline hash",
		     "Of two revisions of another checkout:",
		     "benchline hash --repo ../proj main~1 main"},
    },
    {
	.name = "paths",
	.fn = cmd_paths,
	.forms = {{"check", NULL, ""}},
	.summary = "fail when a top-level path is neither measured nor unmeasured",
	.description =
	    "Names every top-level path of HEAD that is in neither measured_paths nor "
	    "unmeasured_paths of benchline.json, so a new directory cannot slip out of the source "
	    "hash unnoticed. Without a benchline.json there is nothing to classify, and it says "
	    "so.",
	.exits = "0 every path is classified, or there is no benchline.json\n1 a path is "
		 "unclassified\n2 a broken repository or benchline.json, or bad usage",
	.examples = {"Check the current checkout:", "benchline paths check",
		     "Check another one:", "benchline paths check --repo ../proj"},
    },
    {
	.name = "sync",
	.fn = cmd_sync,
	.needs = NEED_DB_CREATE,
	.forms = {{NULL, "--repo [--json]", ""}},
	.summary = "record main's first-parent history (only new commits)",
	.description =
	    "Walks main's first-parent history and stores each commit's place (seq, 0 at the "
	    "root), parent, source hash, commit time, subject and pull-request number. Only "
	    "commits not stored yet are walked; a rewritten main drops the commits past the fork. "
	    "Afterwards every run's not-main tag is recomputed.",
	.exits = "0 main was synced\n2 a broken or shallow repository, the database, or bad usage",
	.examples = {"Record the current checkout's main:", "benchline sync --repo .",
		     "The same, printing what was walked as JSON:",
		     "benchline sync --repo . --json"},
    },
    {
	.name = "preflight",
	.fn = cmd_preflight,
	.forms = {{NULL, NULL, ""}},
	.summary = "check that the machine is quiet enough to measure",
	.description =
	    "Checks that the machine is quiet enough to measure: CPU and GPU load, other "
	    "benchmark processes, power, swap, turbo and the CPU governor, with the limits of "
	    "--repo's benchline.json. Prints one line per check, or the preflight object a record "
	    "carries with --json.",
	.exits = "0 the machine is quiet\n1 it is busy\n2 an error, or bad usage",
	.examples = {"Is this machine quiet?", "benchline preflight",
		     "The same with a repository's limits, as JSON:",
		     "benchline preflight --repo . --json"},
    },
    {
	.name = "serve",
	.fn = cmd_serve, /* opens the database itself: only --create makes it */
	.forms = {{NULL, NULL, ""}},
	.summary = "serve the charts, the Series pages and the JSON API over HTTP",
	.description =
	    "Serves the overview, a page and a chart per Series, and the JSON API over HTTP "
	    "(loopback by default; --port 0 picks a free port and the first line printed is the "
	    "URL). Pushes and confirm outcomes need a bearer token from --token-file; every push "
	    "that stores something is followed by detection in a background thread. --repo reads "
	    "DIR's benchline.json, serves the gate and syncs main. A database that does not exist "
	    "is refused unless --create is given. Ctrl-C or SIGTERM finishes the requests in "
	    "flight, then stops.",
	.exits = "0 stopped by a signal\n2 the database, the port, the repository, or bad usage",
	.examples = {"Serve the demo database on port 8080:", "benchline --db demo.db serve",
		     "Serve a new database on every address, taking pushes:",
		     "benchline --db /srv/bench.db serve --create --bind 0.0.0.0 --token-file "
		     "/etc/benchline/tokens --repo /srv/proj"},
    },
    {
	.name = "export",
	.fn = cmd_export,
	.needs = NEED_DB,
	.forms = {{NULL, "--html [--repo] [--gnuplot]", ""}},
	.summary = "write the pages and charts as a static site",
	.description =
	    "Writes what the server shows as files that work from the file system or any static "
	    "host: the overview (index.html, with its search and sort), the alerts, the Suspects, "
	    "the Regressions and a page for each, every Series' page with its chart (series/), a "
	    "README badge (badge.svg) and the stylesheet and scripts, every link relative. What "
	    "needs a server is left out: the JSON API, the gate, zoom. DIR is made when missing; "
	    "the files written replace those of an earlier export. Progress goes to stderr, a "
	    "summary line to stdout.",
	.exits = "0 the site was written\n2 no database, a page or chart that could not be made, "
		 "a file that could not be written, or bad usage",
	.examples = {"Publish the demo database as a site:",
		     "benchline --db demo.db export --html site",
		     "With links to each commit on the repository's host:",
		     "benchline --db bench.db export --html public --repo ."},
    },
    {
	.name = "demo",
	.fn = cmd_demo,
	.needs = NEED_DB_CREATE,
	.forms = {{NULL, NULL, ""}},
	.summary = "write a generated demo history into the database",
	.description =
	    "Writes a generated history into an empty database: machines, benchmarks and configs, "
	    "a few hundred commits, harness bumps, imported Baselines, planted steps up and down, "
	    "noisy and dirty runs. The same seed writes the same history; --json prints what was "
	    "planted.",
	.exits = "0 the history was written\n2 the database is not empty, or bad usage",
	.examples = {"Write the demo history into demo.db:", "benchline --db demo.db demo",
		     "Another history, printing its planted steps as JSON:",
		     "benchline --db other.db demo --seed 7 --json"},
    },
    {
	.name = "ladder",
	.fn = cmd_ladder,
	.forms = {{"derive", "--baseline --ladders [--pct]", ""},
		  {"check", "--baseline --thresholds --ladders [--declared]", ""},
		  {"compare", "--baseline --thresholds --current [--report]", ""},
		  {"floors", "--baseline --ladders [--json]", ""}},
	.summary = "bucket-ladder bounds for histogram quantiles: derive, check, compare, floors",
	.description =
	    "Bucket-ladder bounds for latency quantiles read from histograms, with no database: "
	    "derive prints a thresholds file whose bounds come from the baseline and the ladders; "
	    "check prints each lint violation of a thresholds file; compare judges a captured run "
	    "against the baseline; floors lists each key's detection floor, weakest first.",
	.exits = "0 pass\n1 a regression, a lint violation or a refused derivation\n2 an "
		 "unreadable or malformed file, or bad usage",
	.examples =
	    {"Derive the thresholds, with a 50% bound beside each:",
	     "benchline ladder derive --baseline baseline.json --ladders ladders.json --pct "
	     "50",
	     "Judge a captured run, writing the JSON report:",
	     "benchline ladder compare --baseline baseline.json --thresholds "
	     "thresholds.json --current current.json --report report.json"},
    },
    /* Plumbing, for the tests and scripts: `benchline help` lists it apart. */
    {
	.name = "worktree",
	.fn = cmd_worktree,
	.forms = {{NULL, NULL, "REV [REV]"}},
	.summary = "check out (and build, or run) two revisions in the re-bench's worktrees",
	.plumbing = 1,
	.description =
	    "The re-bench's first steps, one at a time: checks the first revision out in side a's "
	    "worktree and the second in side b's, under .benchline/worktrees/, and prints SIDE "
	    "COMMIT PATH per side; --build builds each with bench.build, --run runs bench.run "
	    "once in each.",
	.exits = "0 done\n2 an error, or bad usage\n125 a side cannot be built",
	.examples = {"Check two revisions out:", "benchline worktree HEAD~1 HEAD",
		     "And build them:", "benchline worktree --build HEAD~1 HEAD"},
    },
    {
	.name = "generate",
	.fn = cmd_generate,
	.forms = {{"manpage", NULL, "[COMMAND]"}, {"completion", NULL, "[COMMAND]"}},
	.summary = "write the man page or the bash completion, from this table",
	.plumbing = 1,
	.description =
	    "Writes the man page benchline.1 or the bash completion script to stdout, made from "
	    "the command table and every command's options (make builds both). With COMMAND, "
	    "only that command's part.",
	.exits = "0 written\n2 no such command, or bad usage",
	.examples = {"The man page:", "benchline generate manpage >benchline.1",
		     "The bash completion:", "benchline generate completion >benchline.bash"},
    },
    {.name = NULL},
};

static const char global_usage[] =
    "usage: benchline [--db FILE] [--lock-timeout SECONDS] [--version] COMMAND [ARGS]\n"
    "\n"
    "The database is --db FILE, else $BENCHLINE_DB, else ./benchline.db. A command that\n"
    "writes waits up to --lock-timeout seconds (300) for another writer's lock, saying so.\n"
    "'benchline COMMAND --help' shows what a command does, its options and examples.\n";

/* The longest --lock-timeout, in seconds (a day), and the default. */
#define CLI_MAX_LOCK_TIMEOUT	 86400
#define CLI_LOCK_TIMEOUT_DEFAULT 300

/* A writer waiting for another's lock says so on stderr (store_wait_fn). */
static void say_lock_wait(const char *name, double waited_s, double limit_s, void *data)
{
	(void)data;
	cli_printf(stderr,
		   "benchline: waiting for the write lock of '%s', held by another writer (%.0f s "
		   "of at most %.0f; --lock-timeout)\n",
		   name, waited_s, limit_s);
}

/* --lock-timeout's value: seconds, 1 to CLI_MAX_LOCK_TIMEOUT; 0 when it is not one. */
static double lock_timeout_arg(const char *arg)
{
	char *end;
	double v;
	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= 1 && v <= CLI_MAX_LOCK_TIMEOUT))
		return 0;
	return v;
}

const struct cli_command *cli_find_command(const char *name)
{
	for (const struct cli_command *c = cli_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* "benchline: MESSAGE" on stderr, the message escaped as every text printer escapes. */
static void say_error(const char *fmt, va_list ap)
{
	struct strbuf msg = STRBUF_INIT;
	strbuf_vaddf(&msg, fmt, ap);
	cli_printf(stderr, "benchline: %s\n", msg.buf);
	strbuf_release(&msg);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say_error(fmt, ap);
	va_end(ap);
}

int cli_fail(const struct bl_error *err)
{
	cli_error("%s", err->msg.len ? err->msg.buf : "unknown error");
	return 2;
}

int cli_fail_measure(int ret, const struct bl_error *err)
{
	cli_fail(err);
	return ret == BL_EBUILD ? EXIT_CANNOT_BUILD : 2;
}

void cli_list_release(struct cli_list *l)
{
	free(l->items);
	l->items = NULL;
	l->nr = l->alloc = 0;
}

void cli_usage_error(const struct cli_command *cmd, const struct cli_option *opts, const char *fmt,
		     ...)
{
	va_list ap;
	va_start(ap, fmt);
	say_error(fmt, ap);
	va_end(ap);
	cli_print_usage(stderr, cmd, opts);
	exit(2);
}

static const struct cli_option *find_option(const struct cli_option *opts, const char *name,
					    size_t len)
{
	for (const struct cli_option *o = opts; o && o->type != OPT_END; o++)
		if (strlen(o->long_name) == len && !strncmp(o->long_name, name, len))
			return o;
	return NULL;
}

static void unknown_option(const struct cli_command *cmd, const struct cli_option *opts,
			   const char *arg)
{
	const char *names[64];
	size_t n = 0, len;
	struct strbuf hint = STRBUF_INIT;
	for (const struct cli_option *o = opts; o && o->type != OPT_END && n < 64; o++)
		names[n++] = o->long_name;
	len = strcspn(arg + 2, "=");
	if (arg[0] == '-' && arg[1] == '-')
		strbuf_add_suggestion(&hint, "--", arg + 2, len, names, n);
	cli_usage_error(cmd, opts, "unknown option '%s'%s", arg, hint.buf);
}

static void set_option(const struct cli_command *cmd, const struct cli_option *opts,
		       const struct cli_option *o, const char *arg)
{
	char *end;
	switch (o->type) {
	case OPT_BOOL:
		*(int *)o->value = 1;
		break;
	case OPT_STRING:
		*(const char **)o->value = arg;
		break;
	case OPT_LIST: {
		struct cli_list *l = o->value;
		ALLOC_GROW(l->items, l->nr, l->alloc);
		l->items[l->nr++] = arg;
		break;
	}
	case OPT_INT:
		errno = 0;
		*(long *)o->value = strtol(arg, &end, 10);
		if (errno || end == arg || *end)
			cli_usage_error(cmd, opts, "--%s wants an integer, not '%s'", o->long_name,
					arg);
		break;
	case OPT_DOUBLE:
		errno = 0;
		*(double *)o->value = strtod(arg, &end);
		if (errno || end == arg || *end)
			cli_usage_error(cmd, opts, "--%s wants a number, not '%s'", o->long_name,
					arg);
		break;
	case OPT_END:
		break;
	}
}

/* Opens the database the command's table entry asks for; exits 2 when it cannot. */
static void setup(struct cli_ctx *ctx)
{
	struct bl_error err = BL_ERROR_INIT;
	int flags = (ctx->cmd->needs & NEED_DB_CREATE) ? STORE_CREATE : 0;
	if (!ctx->cmd->needs || ctx->store)
		return;
	if (store_open(&ctx->store, ctx->db_path, flags, &err)) {
		cli_fail(&err);
		exit(2);
	}
}

int cli_parse(int argc, const char **argv, const struct cli_option *opts, struct cli_ctx *ctx)
{
	const struct cli_command *cmd = ctx->cmd;
	int nargs = 0, i;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			cli_print_help(stdout, cmd, opts, ctx->help);
			exit(0);
		}
		if (a[0] == '-' && a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			const struct cli_option *o = find_option(opts, name, len);
			if (!o)
				unknown_option(cmd, opts, a);
			if (o->type == OPT_BOOL) {
				if (eq)
					cli_usage_error(cmd, opts, "--%s takes no value",
							o->long_name);
				set_option(cmd, opts, o, NULL);
			} else if (eq) {
				set_option(cmd, opts, o, eq + 1);
			} else if (i + 1 < argc) {
				set_option(cmd, opts, o, argv[++i]);
			} else {
				cli_usage_error(cmd, opts, "--%s needs a value", o->long_name);
			}
			continue;
		}
		/* -v is the one short option: --verbose, where a command has it. */
		if (!strcmp(a, "-v") && find_option(opts, "verbose", 7)) {
			set_option(cmd, opts, find_option(opts, "verbose", 7), NULL);
			continue;
		}
		if (a[0] == '-' && a[1])
			unknown_option(cmd, opts, a);
		argv[nargs++] = a;
	}
	for (; i < argc; i++)
		argv[nargs++] = argv[i];
	setup(ctx);
	return nargs;
}

int cmd_help(int argc, const char **argv, struct cli_ctx *ctx)
{
	static const struct cli_option opts[] = {{OPT_END, NULL, NULL, NULL, NULL}};
	argc = cli_parse(argc, argv, opts, ctx);
	if (argc > 1)
		cli_usage_error(ctx->cmd, opts, "help takes at most one command");
	if (argc == 1) {
		const struct cli_command *c = cli_find_command(argv[0]);
		struct strbuf hint = STRBUF_INIT;
		if (!c) {
			cli_suggest_command(&hint, argv[0]);
			cli_usage_error(ctx->cmd, opts, "no command '%s'%s", argv[0], hint.buf);
		}
		return cli_run_help(c, ctx->db_path, ctx->help);
	}
	fputs(global_usage, stdout);
	fputs("\ncommands:\n", stdout);
	for (const struct cli_command *c = cli_commands; c->name; c++)
		if (!c->plumbing)
			printf("    %-16s %s\n", c->name, c->summary);
	fputs("\nplumbing (for scripts and tests):\n", stdout);
	for (const struct cli_command *c = cli_commands; c->name; c++)
		if (c->plumbing)
			printf("    %-16s %s\n", c->name, c->summary);
	return 0;
}

void cli_suggest_command(struct strbuf *hint, const char *typed)
{
	const char *names[64];
	size_t n = 0;
	for (const struct cli_command *c = cli_commands; c->name && n < 64; c++)
		names[n++] = c->name;
	strbuf_add_suggestion(hint, "", typed, strlen(typed), names, n);
}

int cli_run_help(const struct cli_command *cmd, const char *db_path, enum cli_help help)
{
	const char *args[] = {cmd->name, "--help", NULL};
	struct cli_ctx sub = {db_path, NULL, cmd, 0, help};
	return cmd->fn(2, args, &sub);
}

int cmd_version(int argc, const char **argv, struct cli_ctx *ctx)
{
	static const struct cli_option opts[] = {{OPT_END, NULL, NULL, NULL, NULL}};
	if (cli_parse(argc, argv, opts, ctx))
		cli_usage_error(ctx->cmd, opts, "version takes no arguments");
	printf("benchline %s\n", BENCHLINE_VERSION);
	return 0;
}

int main(int argc, char **argv_in)
{
	const char **argv = (const char **)argv_in;
	const char *db_path = getenv("BENCHLINE_DB");
	const struct cli_command *cmd;
	struct cli_ctx ctx = {NULL, NULL, NULL, 0, CLI_HELP_TEXT};
	struct bl_error err = BL_ERROR_INIT;
	double lock_timeout = CLI_LOCK_TIMEOUT_DEFAULT;
	int i, ret;

	signal(SIGPIPE, SIG_IGN);
	if (!db_path || !*db_path)
		db_path = "benchline.db";
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--version")) {
			ctx.cmd = cli_find_command("version");
			return cmd_version(1, argv + i, &ctx);
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			/* 'benchline help': the global usage and the commands */
			ctx.db_path = db_path;
			ctx.cmd = cli_find_command("help");
			return cmd_help(1, argv + i, &ctx);
		} else if (!strcmp(argv[i], "--db")) {
			if (i + 1 >= argc) {
				cli_error("--db needs a file");
				fputs(global_usage, stderr);
				return 2;
			}
			db_path = argv[++i];
			ctx.db_given = 1;
		} else if (!strncmp(argv[i], "--db=", 5)) {
			db_path = argv[i] + 5;
			ctx.db_given = 1;
		} else if (!strcmp(argv[i], "--lock-timeout") ||
			   !strncmp(argv[i], "--lock-timeout=", 15)) {
			const char *arg = argv[i][14]	 ? argv[i] + 15
					  : i + 1 < argc ? argv[++i]
							 : "";
			if (!(lock_timeout = lock_timeout_arg(arg))) {
				cli_error("--lock-timeout wants seconds, 1 to %d, not '%s'",
					  CLI_MAX_LOCK_TIMEOUT, arg);
				fputs(global_usage, stderr);
				return 2;
			}
		} else {
			cli_error("unknown option '%s'", argv[i]);
			fputs(global_usage, stderr);
			return 2;
		}
	}
	if (i >= argc) {
		fputs(global_usage, stderr);
		return 2;
	}
	if (!(cmd = cli_find_command(argv[i]))) {
		struct strbuf hint = STRBUF_INIT;
		cli_suggest_command(&hint, argv[i]);
		if (hint.len)
			cli_error("'%s' is not a benchline command%s", argv[i], hint.buf);
		else
			cli_error("'%s' is not a benchline command (see 'benchline help')",
				  argv[i]);
		strbuf_release(&hint);
		return 2;
	}
	ctx.db_path = db_path;
	ctx.cmd = cmd;
	/* A writer waits for another's lock as long as --lock-timeout says, telling stderr (the
	 * server sets its own: serve's --lock-timeout). */
	store_set_lock_wait((unsigned)(lock_timeout * 1000), say_lock_wait, NULL);
	ret = cmd->fn(argc - i, argv + i, &ctx);
	store_free(ctx.store);
	bl_error_release(&err);
	libgit2_stop();
	if (fflush(stdout) || ferror(stdout)) {
		if (ret == 0)
			ret = 2;
	}
	return ret;
}
