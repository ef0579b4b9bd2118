#!/usr/bin/env bash
# A scheduled sweep, end to end: run the sweep, export its runs into a new branch of the repository,
# write the `llmbench diff` report as the pull request's body, push the branch, and open the pull request
# when `gh` is logged in. Run from a clone of the repository on a machine with GPUs, by cron
# (.github/workflow-templates/scheduled-sweep.yml on a self-hosted runner) or by Slurm's scrontab
# (scripts/scheduled-sweep.scrontab).
#
#   scripts/scheduled-sweep.sh SWEEP_FILE
#
# Environment: REMOTE (git remote to push to, default origin), BASE (branch the pull request targets,
# default main), WORK (folder for this run's files, default build/scheduled/<UTC time>), LLMBENCH (the
# llmbench command, default llmbench), OPEN_PR=0 to push without opening the pull request.
# The clone's own work tree is never touched: the branch is made in a worktree under WORK.
set -euo pipefail

sweep=$(realpath "${1:?usage: scripts/scheduled-sweep.sh SWEEP_FILE}")
remote=${REMOTE:-origin}
base=${BASE:-main}
stamp=$(date -u +%Y%m%d-%H%M%S)
work=$(realpath -m "${WORK:-build/scheduled/$stamp}")
llmbench=${LLMBENCH:-llmbench}
branch="sweep/$stamp"

if [ -e "$work" ]; then
  echo "error: $work exists; WORK must name a new folder" >&2
  exit 1
fi
mkdir -p "$work"
echo "[1/6] fetching $remote/$base"
git fetch --quiet "$remote" "$base"
git worktree add --quiet -b "$branch" "$work/tree" "$remote/$base"

echo "[2/6] running the sweep $sweep"
$llmbench run "$sweep" --runs-db "$work/runs.duckdb" --no-progress

echo "[3/6] exporting the runs into $work/tree/results"
$llmbench export --runs-db "$work/runs.duckdb" --results "$work/tree/results"
$llmbench validate --results "$work/tree/results"

echo "[4/6] committing on $branch"
git -C "$work/tree" add results
git -C "$work/tree" commit --quiet -m "results: scheduled sweep $(basename "$sweep") ($stamp)"

echo "[5/6] writing the pull request's body (llmbench diff $remote/$base $branch)"
$llmbench diff "$remote/$base" "$branch" --repo "$work/tree" --output "$work/pr-body.md"

echo "[6/6] pushing $branch to $remote"
git -C "$work/tree" push --quiet "$remote" "$branch"
if [ "${OPEN_PR:-1}" = 1 ] && command -v gh >/dev/null && gh auth status >/dev/null 2>&1; then
  (cd "$work/tree" && gh pr create --base "$base" --head "$branch" \
    --title "results: scheduled sweep $(basename "$sweep") ($stamp)" --body-file "$work/pr-body.md")
else
  echo "pushed $branch; open the pull request with the body in $work/pr-body.md"
fi
