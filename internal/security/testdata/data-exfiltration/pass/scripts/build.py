import os
import subprocess

import requests

# The build gets the environment; the network gets only public data.
subprocess.run(["make", "all"], env=dict(os.environ), check=True)
versions = requests.get("https://api.example.com/v1/versions", timeout=10).json()
print(versions["latest"])
