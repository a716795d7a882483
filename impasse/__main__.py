from impasse.cli.main import app

app()
