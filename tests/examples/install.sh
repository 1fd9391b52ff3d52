# Today, from a clone of this repository (memdir is not on the npm registry yet):
scripts/build.sh                  # builds the package into pkg/
(cd pkg && npm pack)              # → pkg/memdir-0.1.0.tgz, the file npm would publish
npm install /path/to/memdir/pkg/memdir-0.1.0.tgz   # in your project (or the folder: …/memdir/pkg)

# Once published, the same package:
npm install memdir
