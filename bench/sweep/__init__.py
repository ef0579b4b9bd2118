"""Engine-independent sweeps: the sweep file, the engine interface, running, recording, Slurm, export."""
