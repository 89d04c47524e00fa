# hack/clone.sh, sourced by the scripts that work on public operators'
# code (seeds.sh, vet-sample.sh): where their clones come from.

# clone VAR NAME REPOSITORY COMMIT prints the clone $VAR names, or else
# $work/src/NAME, cloned from github.com/REPOSITORY if missing; either must
# hold COMMIT. Errors name the calling script ($0) and the variable to set.
clone() {
  local var=$1 name=$2 repository=$3 commit=$4 me
  me=$(basename "$0" .sh)
  local dir=${!var:-$work/src/$name}
  if [ ! -d "$dir" ]; then
    mkdir -p "$(dirname "$dir")"
    git clone -q "https://github.com/$repository" "$dir" >&2 ||
      { echo "$me: cannot clone github.com/$repository into $dir: set $var to a clone of it holding $commit" >&2; exit 1; }
  fi
  if ! git -C "$dir" cat-file -e "$commit^{commit}" 2>/dev/null; then
    echo "$me: $dir has no commit $commit: set $var to a clone of github.com/$repository holding it (or fetch it there)" >&2
    exit 1
  fi
  echo "$dir"
}
