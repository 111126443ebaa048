"""Files: the data and model files pegasos-rs reads and writes.

* :mod:`pegasos_rs.io.svmlight`: svmlight/libsvm data files
  (:func:`pegasos_rs.load_svmlight_file`, :func:`pegasos_rs.dump_svmlight_file`).
* :mod:`pegasos_rs.io.model_io`: pegasos-rs' model files (:func:`pegasos_rs.save`,
  :func:`pegasos_rs.load`), with ``_model_file`` (the format's reading and writing
  of declared state) and ``_saved_transformers`` (scikit-learn's scalers in a file).
* :mod:`pegasos_rs.io.liblinear_format`: linear models written as LIBLINEAR model
  files (:func:`pegasos_rs.write_liblinear_model`).
* :mod:`pegasos_rs.io.foreign_models`: LIBLINEAR's and LIBSVM's model files read
  and predicted with as those libraries do
  (:func:`~pegasos_rs.io.foreign_models.read_model`).

The modules here import no estimator module (estimators register what model files
may hold in :mod:`pegasos_rs._registry`) and nothing of :mod:`pegasos_rs.cli`. This
file imports nothing, so that the command line reads and writes files without
importing what it does not use.
"""
