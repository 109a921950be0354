"""What memtopo's SASS checkers share (check-sass, check-stream-sass, check-study-sass): finding
cuobjdump, disassembling an object or library (with the fallback for cubins newer than the
disassembler: check-sass's docstring says how), splitting the SASS into functions and reading
instructions."""

import os
import re
import shutil
import struct
import subprocess
import tempfile

LOAD_OPCODE = re.compile(r"^(LDG|LDS|LDC|LD|TEX|TLD|TLD4|TMML|TXD|TXQ|ULDC|LDSM)(\.|\s|$)")
CLOCK_READ = re.compile(r"^(CS2R|S2R|S2UR)(\.\w+)*\s+\w+,\s*SR_CLOCKLO")
INSTRUCTION = re.compile(r"^\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\*")
FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")
EM_CUDA = 190
# The chase kernels: disassemble() takes cuobjdump's own output when it shows them.
CHASE_KERNEL = re.compile(r"(?<!wide_)chase_kernel.*LoadPathE(\d+)E")


def find_cuobjdump(explicit, search_dirs):
    candidates = [explicit, os.environ.get("CUOBJDUMP"), shutil.which("cuobjdump")]
    candidates += [os.path.join(d, "cuobjdump") for d in search_dirs]
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root:
            candidates.append(os.path.join(root, "bin", "cuobjdump"))
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None

def run_cuobjdump(cuobjdump, path, arch):
    result = subprocess.run([cuobjdump, "-sass", "-arch", arch, path], capture_output=True,
                            text=True)
    return result.returncode, result.stdout, result.stderr

def embedded_cubins(data):
    """Yields every CUDA ELF image (e_machine 190) found in `data`, whatever container."""
    start = 0
    while True:
        at = data.find(b"\x7fELF", start)
        if at < 0:
            return
        start = at + 4
        if len(data) < at + 64 or data[at + 4] != 2:  # ELFCLASS64 only
            continue
        machine = struct.unpack_from("<H", data, at + 18)[0]
        if machine != EM_CUDA:
            continue
        phoff = struct.unpack_from("<Q", data, at + 0x20)[0]
        shoff = struct.unpack_from("<Q", data, at + 0x28)[0]
        phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", data, at + 0x36)
        size = max(shoff + shentsize * shnum, phoff + phentsize * phnum)
        if size <= 64 or at + size > len(data):
            continue
        yield bytes(data[at:at + size])
        start = at + size

def cubin_arch(cubin):
    """The sm_XX number of a cubin: e_flags bits 8-15 in the CUDA 12.8+ header (OS ABI 0x41),
    bits 0-7 before."""
    flags = struct.unpack_from("<I", cubin, 0x30)[0]
    return (flags >> 8) & 0xFF if cubin[7] == 0x41 else flags & 0xFF

def legacy_header(cubin):
    """Rewrites a CUDA 12.8+ cubin header (OS ABI 0x41, arch in e_flags bits 8-15) into the
    older form (OS ABI 0x33, ABI version 7, arch in bits 0-7 and 16-23)."""
    image = bytearray(cubin)
    if image[7] != 0x41:
        return bytes(image)
    flags = struct.unpack_from("<I", image, 0x30)[0]
    sm = (flags >> 8) & 0xFF
    image[7], image[8] = 0x33, 7
    # EF_CUDA_TEXMODE_UNIFIED | EF_CUDA_64BIT_ADDRESS | sm | EF_CUDA_VIRTUAL_SM(sm)
    struct.pack_into("<I", image, 0x30, sm | 0x100 | 0x400 | (sm << 16))
    return bytes(image)

def disassemble(cuobjdump, path, arch):
    """SASS text of `path` for `arch` (sm_90), and whether the legacy-header fallback was
    needed."""
    code, out, err = run_cuobjdump(cuobjdump, path, arch)
    if code == 0 and CHASE_KERNEL.search(out):
        return out, False
    with open(path, "rb") as handle:
        number = int(arch.removeprefix("sm_"))
        cubins = [c for c in embedded_cubins(handle.read()) if cubin_arch(c) == number]
    if not cubins:
        raise RuntimeError(
            f"{cuobjdump} could not read {path} ({(err or out).strip()[:300]}) and the file holds "
            f"no uncompressed {arch} cubin to extract")
    texts = []
    with tempfile.TemporaryDirectory() as scratch:
        for number, cubin in enumerate(cubins):
            target = os.path.join(scratch, f"image{number}.cubin")
            with open(target, "wb") as handle:
                handle.write(legacy_header(cubin))
            code, out, err = run_cuobjdump(cuobjdump, target, arch)
            if code != 0:
                raise RuntimeError(f"{cuobjdump} failed on a cubin from {path}: {err.strip()}")
            texts.append(out)
    return "\n".join(texts), True

def functions(sass):
    """{mangled name: [(offset, instruction text)]}; an instruction the disassembler could
    not decode is a slot with text None."""
    result, current, last_offset = {}, None, None
    for line in sass.splitlines():
        named = FUNCTION.match(line)
        if named:
            current, last_offset = [], None
            result[named.group(1)] = current
            continue
        if current is None:
            continue
        found = INSTRUCTION.match(line)
        if found:
            offset = int(found.group(1), 16)
            # Old disassemblers skip instructions they do not know: keep the gap visible.
            if last_offset is not None:
                for missing in range(last_offset + 16, offset, 16):
                    current.append((missing, None))
            current.append((offset, found.group(2)))
            last_offset = offset
    return result

def strip_predicate(text):
    return re.sub(r"^@!?U?P\w+\s+", "", text)
