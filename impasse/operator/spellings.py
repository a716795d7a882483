"""The spellings a person would recognise for one of a task's objects: a file's folder, a package by
its import name or its distribution's (PyPI's, Debian's), a binary by name or path, a service by its
name, a host with or without its port."""

from __future__ import annotations

from impasse.catalog.tasks import Task

# Import names whose distribution is not spelled from them by a rule (`py`, `python-` prefixes are).
DISTRIBUTIONS = {"yaml": ["pyyaml"], "pil": ["pillow"], "cv2": ["opencv-python"], "sklearn": ["scikit-learn"],
                 "bs4": ["beautifulsoup4"], "dateutil": ["python-dateutil"], "jwt": ["pyjwt"],
                 "crypto": ["pycryptodome"], "attr": ["attrs"], "dotenv": ["python-dotenv"],
                 "google.protobuf": ["protobuf"], "magic": ["python-magic"], "zmq": ["pyzmq"]}
BIN_DIRS = ("/usr/bin/", "/usr/local/bin/", "/bin/", "/usr/sbin/")
# "port" as people write it beside the number ("porta 8080", "puerto 8080", "порт 8080", "8080 端口").
PORT_WORDS = ("port", "porta", "puerto", "порт", "poort", "portu", "端口", "ポート", "포트")
SERVICE_WORDS = ("service", "server", "api", "database", "db", "backend", "daemon",
                 # the same role in the languages agents write in ("catalog 服务")
                 "服务", "服务器", "サービス", "サーバー", "서비스", "서버", "dienst", "servicio", "servidor",
                 "serveur", "serviço", "servizio", "сервис", "сервер", "layanan")


def folders(files: tuple[str, ...]) -> list[str]:
    """Every folder that holds a tracked file, with and without its slash; and the repository's .git."""
    found = {".git", ".git/"}
    for path in files:
        parts = path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth])
            found |= {folder, folder + "/"}
    return sorted(found)


def package_spellings(names: tuple[str, ...]) -> list[str]:
    spelled = []
    for name in names:
        low = name.casefold()
        spelled += [name, f"py{low}", f"python-{low}", f"python3-{low}", low.replace("_", "-"),
                    *DISTRIBUTIONS.get(low, [])]
    return spelled


def binary_spellings(names: tuple[str, ...]) -> list[str]:
    return [*names, *(folder + name for name in names for folder in BIN_DIRS)]


def service_spellings(task: Task) -> list[str]:
    spelled = []
    for service in task.services("service"):
        spelled += [f"{h}:{service.port}" for h in (service.host, "localhost")]
        spelled += [f"{word} {service.port}" for word in PORT_WORDS] + [f"{service.port} {word}" for word in PORT_WORDS]
        spelled += [f"{service.name} {word}" for word in SERVICE_WORDS] + [service.host]
    return spelled


def tls_spellings(task: Task) -> list[str]:
    """A TLS service by its address or host, or by its role as a service ("the pricing API")."""
    spelled = []
    for service in task.services("tls"):
        spelled += [f"{h}:{service.port}" for h in (service.host, "127.0.0.1", "localhost")] + [service.host]
        spelled += [f"{service.name} {word}" for word in SERVICE_WORDS]
    return spelled
